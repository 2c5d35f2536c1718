//! A chess game arbiter: a gRPC service that holds games in Redis, decides
//! which moves are legal and how each game ends, and streams every event.
//!
//! # Layout
//!
//! - [`domain`]: the rules, pure. A command applied to a game at a given
//!   "now" yields a typed rejection or the new game plus its events. In
//!   three folders: `game` (the Laws of Chess, with a table from each
//!   Article to its file), `tournament` (pairing, scoring, standings,
//!   tie-breaks, byes, PGN, TRF) and `stored` (the versioned stored form).
//! - [`store`]: persistence, knowing nothing of chess, behind
//!   [`store::GameStore`]: four small traits (game log, event index,
//!   deadlines, change feeds), with Redis ([`store::RedisStore`]) and
//!   in-memory ([`store::MemoryStore`]) implementations. One commit is one
//!   atomic compare-and-set of a game's version that writes its state and
//!   appends its events together.
//! - [`arbiter`]: the application service. Commands load a game and "now",
//!   let the domain decide, and commit (retrying on a version conflict);
//!   queries read games, event lists, standings and exports; the sweeper
//!   ends games time decided; `watch` follows a game's (or an event's) log
//!   for the watch streams, through a hub that reads each log once per
//!   replica.
//! - [`api`]: the gRPC surface, two services (`ArbiterService` for players and
//!   viewers, `AdminService` for the platform and its arbiters). Maps protobuf
//!   to the arbiter and back, checks tokens, turns rejections into status
//!   codes with details whose reasons are the proto's `ErrorReason` values;
//!   and the broadcast feed, every game in PGN over HTTP for relays.
//! - [`server`]: configuration, health, reflection, TLS, the metrics port,
//!   graceful shutdown, the flag sweeper.
//! - [`metrics`]: the Prometheus metrics every layer records into.
//! - [`proto`]: the generated protobuf types and service stubs.
//!
//! `docs/architecture.md` follows a request through these layers.

pub mod api;
pub mod arbiter;
pub mod domain;
pub mod metrics;
pub mod proto;
pub mod server;
pub mod store;

#[cfg(test)]
mod layout_tests {
    //! The maps in the module documentation stay true to the tree.

    use std::{fs, path::Path};

    /// The modules `source` declares (`mod x;`), but for test modules.
    fn declared(source: &str) -> Vec<String> {
        source
            .lines()
            .filter_map(|line| {
                let line = line.trim_start();
                let rest = line.strip_prefix("pub ").unwrap_or(line);
                let rest = match rest.strip_prefix("pub(") {
                    Some(after) => after.split_once(") ")?.1,
                    None => rest,
                };
                let name = rest.strip_prefix("mod ")?.strip_suffix(';')?;
                Some(name.to_owned())
            })
            .filter(|name| name != "tests" && !name.ends_with("_tests") && name != "test_support")
            .collect()
    }

    /// The module documentation (`//!` lines) of `source`.
    fn map(source: &str) -> String {
        source
            .lines()
            .filter(|line| line.trim_start().starts_with("//!"))
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn walk(dir: &Path, files: &mut Vec<std::path::PathBuf>) {
        for entry in fs::read_dir(dir).expect("read src") {
            let path = entry.expect("an entry").path();
            if path.is_dir() {
                walk(&path, files);
            } else if path.extension().is_some_and(|ext| ext == "rs") {
                files.push(path);
            }
        }
    }

    #[test]
    fn every_module_is_on_its_parents_map_and_every_file_is_a_module() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut files = Vec::new();
        walk(&src, &mut files);
        let sources: Vec<String> = files
            .iter()
            .map(|file| fs::read_to_string(file).expect("read a source file"))
            .collect();
        let source_of = |path: &Path| {
            files
                .iter()
                .position(|file| file == path)
                .map_or("", |i| sources[i].as_str())
        };
        let mut unmapped = Vec::new();
        let mut orphans = Vec::new();
        for (file, source) in files.iter().zip(&sources) {
            let doc = map(source);
            for name in declared(source) {
                if !doc.contains(&format!("`{name}`")) {
                    unmapped.push(format!("{}: {name}", file.display()));
                }
            }
            // A file is compiled only when its parent declares it (or a
            // `#[path]` attribute names it).
            let name = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
            let dir = file.parent().expect("a parent");
            if ["lib", "main", "mod"].contains(&name) || dir.ends_with("bin") {
                continue;
            }
            let parent = if dir == src {
                src.join("lib.rs")
            } else if dir.join("main.rs").exists() {
                // A binary of its own folder (`src/bin/<name>/main.rs`).
                dir.join("main.rs")
            } else {
                dir.join("mod.rs")
            };
            let by_path = sources
                .iter()
                .any(|text| text.contains(&format!("#[path = \"{name}.rs\"]")));
            if !source_of(&parent).contains(&format!("mod {name};")) && !by_path {
                orphans.push(file.display().to_string());
            }
        }
        assert!(
            files.len() > 100,
            "the tree was read: {} files",
            files.len()
        );
        assert!(
            unmapped.is_empty(),
            "modules missing from their parent's map: {unmapped:#?}"
        );
        assert!(orphans.is_empty(), "files no module declares: {orphans:#?}");
    }
}
