//! What a vault file is by its extension (`resources/mime.ts`): its MIME type and whether it is read as text.

/// The MIME type of a file with this extension (no dot, any case), and whether it is read as text.
pub(crate) fn kind_of(extension: &str) -> (&'static str, bool) {
    let text = match extension.to_ascii_lowercase().as_str() {
        "md" => Some("text/markdown"),
        "canvas" | "json" => Some("application/json"),
        "base" => Some("application/yaml"),
        "txt" => Some("text/plain"),
        "csv" => Some("text/csv"),
        _ => None,
    };
    if let Some(mime) = text {
        return (mime, true);
    }
    let binary = match extension.to_ascii_lowercase().as_str() {
        "png" => "image/png",
        "jpg" | "jpeg" => "image/jpeg",
        "gif" => "image/gif",
        "webp" => "image/webp",
        "bmp" => "image/bmp",
        "svg" => "image/svg+xml",
        "avif" => "image/avif",
        "mp3" => "audio/mpeg",
        "wav" => "audio/wav",
        "m4a" => "audio/mp4",
        "ogg" => "audio/ogg",
        "flac" => "audio/flac",
        "3gp" => "audio/3gpp",
        "webm" => "video/webm",
        "mp4" => "video/mp4",
        "mov" => "video/quicktime",
        "mkv" => "video/x-matroska",
        "ogv" => "video/ogg",
        "pdf" => "application/pdf",
        _ => "application/octet-stream",
    };
    (binary, false)
}
