//! Replays the committed fuzz corpus (`fuzz/corpus/`) through the same checks the fuzz targets run.
