//! The scale section rendered: per vault size, each side's first call, warm medians and peak memory, then the
//! plugin's longest event-loop stall per tool across the sizes.

use serde_json::{Map, Value, json};

use super::super::figure::{Figure, round, thousands};
use super::super::scale::{OPERATIONS, ScaleFigures, Size};

impl ScaleFigures {
    pub fn markdown(&self) -> String {
        let mut out = String::from(
            "\n## Scale: the same generated vault at each size\n\nEach side on the same vault: spawn → `initialize` → \
             the first search answered (for obsmcp the median of 5 fresh bridges, each ended before the next starts; \
             a peer once), then medians of warm calls, and the process's peak memory (VmHWM; for \
             \"through the plugin\", the bridge's alone: the plugin's share is Obsidian's, which the fake host cannot \
             stand for). \
             obsidian-mcp reads the files on every search; server-filesystem has no text search, so its name search \
             (which also goes through every path) stands in for it.\n",
        );
        for size in &self.sizes {
            out.push_str(&format!(
                "\n### {}\n\n{}. Medians of {} warm rounds.\n\n| side | first search | {} | peak memory |\n| --- | ---: |{} ---: |\n",
                size.label(),
                size.summary,
                size.rounds,
                OPERATIONS.join(" | "),
                " ---: |".repeat(OPERATIONS.len()),
            ));
            for side in &size.sides {
                let warm: Vec<String> = side.warm.iter().map(|figure| figure.cell("ms")).collect();
                let peak = side
                    .peak_mb
                    .map_or_else(|| "n/a".to_string(), |mb| Figure::value(mb).cell("MB"));
                out.push_str(&format!(
                    "| {} | {} | {} | {peak} |\n",
                    side.name,
                    side.first.cell("ms"),
                    warm.join(" | ")
                ));
            }
        }
        if let Some(first) = self.sizes.first() {
            out.push_str(
                "\n### The plugin's longest event-loop stall per tool\n\nThe longest the plugin host's one event loop \
                 (Obsidian's UI thread, in Obsidian) was held during warm calls of the tool, ms; the bound is 50 ms.\n\n| tool |",
            );
            for size in &self.sizes {
                out.push_str(&format!(" {} |", size.label()));
            }
            out.push_str(&format!(
                "\n| --- |{}\n",
                " ---: |".repeat(self.sizes.len())
            ));
            for (index, (label, _)) in first.stalls.iter().enumerate() {
                out.push_str(&format!("| {label} |"));
                for size in &self.sizes {
                    let cell = size
                        .stalls
                        .get(index)
                        .map_or_else(String::new, |(_, figure)| figure.cell("ms"));
                    out.push_str(&format!(" {cell} |"));
                }
                out.push('\n');
            }
        }
        out
    }

    pub fn json(&self) -> Value {
        let sizes: Vec<Value> = self
            .sizes
            .iter()
            .map(|size| {
                let sides: Vec<Value> = size
                    .sides
                    .iter()
                    .map(|side| {
                        let mut warm = Map::new();
                        for (operation, figure) in OPERATIONS.iter().zip(&side.warm) {
                            warm.insert((*operation).into(), figure.json());
                        }
                        json!({
                            "side": side.name,
                            "first_search_ms": side.first.json(),
                            "warm_ms": warm,
                            "peak_mb": side.peak_mb.map(round),
                        })
                    })
                    .collect();
                let mut stalls = Map::new();
                for (label, figure) in &size.stalls {
                    stalls.insert((*label).into(), figure.json());
                }
                json!({
                    "notes": size.notes,
                    "prose_sentences_per_section": size.prose,
                    "average_note_kb": size.average_kb().map(round),
                    "generated": size.summary,
                    "rounds": size.rounds,
                    "sides": sides,
                    "plugin_longest_stall_ms": stalls,
                })
            })
            .collect();
        Value::Array(sizes)
    }
}

impl Size {
    /// A note's average size, KB, from the generator's summary ("…, 79.4 MB, 14.1 s").
    pub fn average_kb(&self) -> Option<f64> {
        let before = self.summary.split(" MB").next()?;
        let mb: f64 = before.rsplit(' ').next()?.parse().ok()?;
        (self.notes > 0).then(|| mb * 1000.0 / self.notes as f64)
    }

    /// "100,000 notes of 2.4 KB": the size and the shape, which tell the scale rows apart.
    pub fn label(&self) -> String {
        match self.average_kb() {
            Some(kb) => format!("{} notes of {kb:.1} KB", thousands(self.notes)),
            None => format!(
                "{} notes, {} sentences of prose per section",
                thousands(self.notes),
                self.prose
            ),
        }
    }
}
