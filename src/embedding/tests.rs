//! The model's setup against a real HTTP server on loopback, laid out as the Hub is (`/{repository}/resolve/
//! {revision}/{file}`, answered with a redirect to the file's address elsewhere, as the Hub does for LFS files), with
//! the real `curl`: a good download, a changed file, a short one, a dropped connection, and a copy from a folder.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::Arc;

use super::*;
use crate::offline::semantic::model::tests::write_model;

/// How the server sends a file's bytes.
#[derive(Clone, Copy, PartialEq)]
enum Serve {
    Good,
    /// One byte changed.
    Changed,
    /// A shorter body, said to be complete.
    Short,
    /// The connection closed halfway through the said length.
    Dropped,
}

/// Serves the files of `folder` under `repository` at `revision`; returns the endpoint.
fn hub(folder: &Path, serve: Serve) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://{}", listener.local_addr().unwrap());
    let folder = Arc::new(folder.to_path_buf());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let mut request = String::new();
            let mut reader = BufReader::new(stream.try_clone().unwrap());
            if reader.read_line(&mut request).is_err() {
                continue;
            }
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                line.clear();
            }
            let path = request.split(' ').nth(1).unwrap_or("/").to_owned();
            let resolved = path
                .strip_prefix("/someone/tiny/resolve/")
                .and_then(|rest| rest.split_once('/'));
            if let Some((revision, file)) = resolved {
                let _ = write!(
                    stream,
                    "HTTP/1.1 302 Found\r\nLocation: /cdn/{file}\r\nX-Repo-Commit: {revision}\r\nContent-Length: 0\r\n\r\n"
                );
                continue;
            }
            let Some(bytes) = path
                .strip_prefix("/cdn/")
                .and_then(|file| std::fs::read(folder.join(file)).ok())
            else {
                let _ = write!(
                    stream,
                    "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n"
                );
                continue;
            };
            let mut body = bytes.clone();
            match serve {
                Serve::Good => {}
                Serve::Changed => body[0] ^= 1,
                Serve::Short => body.truncate(bytes.len() / 2),
                Serve::Dropped => {}
            }
            let _ = write!(
                stream,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n",
                body.len()
            );
            let sent = if serve == Serve::Dropped {
                &body[..body.len() / 2]
            } else {
                &body[..]
            };
            let _ = stream.write_all(sent);
            let _ = stream.flush();
        }
    });
    endpoint
}

/// The small model's files as a pin.
fn pin_of(folder: &Path) -> Pin {
    Pin {
        repository: "someone/tiny".into(),
        revision: "abc123".into(),
        license: "0BSD".into(),
        files: MODEL_FILES
            .iter()
            .map(|name| {
                let (bytes, sha256) = fetch::hash_file(&folder.join(name)).unwrap();
                PinnedFile {
                    name: (*name).to_owned(),
                    bytes,
                    sha256,
                }
            })
            .collect(),
    }
}

fn curl_is_here() -> bool {
    std::process::Command::new("curl")
        .arg("--version")
        .output()
        .is_ok()
}

#[test]
fn a_download_is_checked_and_swapped_in_whole() {
    if !curl_is_here() {
        eprintln!("skipped: no curl on PATH");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("source");
    write_model(&source);
    let pin = pin_of(&source);
    let state = dir.path().join("state");
    let good = hub(&source, Serve::Good);
    let installed = install(
        &Origin::Hub {
            pin: &pin,
            endpoint: &good,
        },
        &state,
    )
    .unwrap();
    let Installed::Added(manifest) = installed else {
        panic!("{installed:?}")
    };
    assert_eq!(manifest.source, "someone/tiny@abc123");
    assert_eq!(verify(&folder(&state)).unwrap(), manifest);
    Model::load(&folder(&state)).unwrap();
    // Again: every file checked, nothing downloaded.
    let again = install(
        &Origin::Hub {
            pin: &pin,
            endpoint: "http://127.0.0.1:9",
        },
        &state,
    )
    .unwrap();
    assert!(matches!(again, Installed::Unchanged(_)), "{again:?}");

    for (serve, says) in [
        (Serve::Changed, "is not the pinned file"),
        (Serve::Short, "is not the pinned file"),
        (Serve::Dropped, "failed"),
    ] {
        // Another revision of the same files, so that the installed model is not taken as this one.
        let mut other = pin.clone();
        other.revision = "def456".into();
        let endpoint = hub(&source, serve);
        std::fs::write(folder(&state).join("marker"), "the model before").unwrap();
        let error = install(
            &Origin::Hub {
                pin: &other,
                endpoint: &endpoint,
            },
            &state,
        )
        .unwrap_err();
        assert!(error.contains(says), "{error}");
        // The model that was there stays, and nothing of the failed run is left.
        assert!(folder(&state).join("marker").is_file());
        let left: Vec<_> = std::fs::read_dir(&state)
            .unwrap()
            .map(|entry| entry.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(left, ["model"], "{error}");
    }
}

#[test]
fn a_model_folder_is_copied_with_its_record_and_changes_are_found() {
    let dir = tempfile::tempdir().unwrap();
    let source = dir.path().join("mine");
    write_model(&source);
    let state = dir.path().join("state");
    assert!(set_up_by_obsmcp(&state).is_none());
    let Installed::Added(manifest) = install(&Origin::Folder(&source), &state).unwrap() else {
        panic!()
    };
    assert_eq!(manifest.files.len(), 3);
    assert_eq!(set_up_by_obsmcp(&state), Some(folder(&state)));
    assert!(matches!(
        install(&Origin::Folder(&source), &state).unwrap(),
        Installed::Unchanged(_)
    ));
    std::fs::write(folder(&state).join("config.json"), "{}").unwrap();
    assert!(
        verify(&folder(&state))
            .unwrap_err()
            .contains("changed since setup")
    );
    // A folder that is no model is refused before anything is copied.
    let empty = dir.path().join("empty");
    std::fs::create_dir_all(&empty).unwrap();
    let error = install(&Origin::Folder(&empty), &state).unwrap_err();
    assert!(error.contains("cannot be used"), "{error}");
}
