//! The repos the mock hub serves: those under `fixtures/` (real config.json texts and header
//! listings, see `fixtures/write.py`) and a few that fail as the hubs fail.

use std::path::Path;

use crate::gguf;

/// What a file holds.
pub enum Body {
    /// A small file, served whole (config.json, the safetensors index).
    Text(Vec<u8>),
    /// A weights file: its header bytes, where its tensor data starts and its whole length.
    /// Nothing past the header is held; a read of the data is logged (tests forbid it).
    Weights {
        /// The header's bytes from the start of the file.
        head: Vec<u8>,
        /// Where the tensor data starts.
        data_start: u64,
        /// The file's length.
        len: u64,
    },
}

impl Body {
    /// The file's length in bytes.
    pub fn size(&self) -> u64 {
        match self {
            Body::Text(t) => t.len() as u64,
            Body::Weights { len, .. } => *len,
        }
    }
}

/// One file of a repo.
pub struct File {
    /// Its path in the repo.
    pub path: String,
    /// Its content.
    pub body: Body,
}

/// How a repo answers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Behaviour {
    /// As a public repo does.
    Public,
    /// Gated: its file list is public, each file answers 401 `GatedRepo` (Hugging Face).
    Gated,
    /// Every request answers 429 with `Retry-After: 30`.
    RateLimited,
    /// Its file list answers after the mock hub's delay, past a client's timeout.
    Slow,
}

/// A repo.
pub struct Repo {
    /// `OWNER/NAME`.
    pub id: String,
    /// Its files.
    pub files: Vec<File>,
    /// How it answers.
    pub behaviour: Behaviour,
}

impl Repo {
    /// The file at `path`.
    pub fn file(&self, path: &str) -> Option<&File> {
        self.files.iter().find(|f| f.path == path)
    }
}

/// A safetensors file from its JSON header: 8 bytes of length, the header, then the tensor
/// data that its last `data_offsets` end announces.
fn safetensors(json: &str) -> Body {
    let mut head = (json.len() as u64).to_le_bytes().to_vec();
    head.extend_from_slice(json.as_bytes());
    let data_start = head.len() as u64;
    let end = json
        .split("\"data_offsets\":[")
        .skip(1)
        .filter_map(|s| {
            s.split(']')
                .next()?
                .split(',')
                .nth(1)?
                .trim()
                .parse::<u64>()
                .ok()
        })
        .max()
        .unwrap_or(0);
    Body::Weights {
        head,
        data_start,
        len: data_start + end,
    }
}

/// The repos under `dir` (`OWNER/NAME/…`) and the failing ones.
pub fn load(dir: &Path) -> Vec<Repo> {
    let mut repos = Vec::new();
    let mut owners: Vec<_> = std::fs::read_dir(dir)
        .expect("the fixtures folder")
        .flatten()
        .filter(|e| e.path().is_dir())
        .collect();
    owners.sort_by_key(|e| e.file_name());
    for owner in owners {
        let mut names: Vec<_> = std::fs::read_dir(owner.path()).unwrap().flatten().collect();
        names.sort_by_key(|e| e.file_name());
        for name in names {
            let id = format!(
                "{}/{}",
                owner.file_name().to_string_lossy(),
                name.file_name().to_string_lossy()
            );
            let mut entries: Vec<_> = std::fs::read_dir(name.path()).unwrap().flatten().collect();
            entries.sort_by_key(|e| e.file_name());
            let mut files = Vec::new();
            for e in entries {
                let file = e.file_name().to_string_lossy().into_owned();
                let text = std::fs::read_to_string(e.path()).unwrap();
                let (path, body) = if let Some(p) = file.strip_suffix(".header.json") {
                    (p.to_string(), safetensors(&text))
                } else if let Some(p) = file.strip_suffix(".header.txt") {
                    let g = gguf::build(&text);
                    (
                        p.to_string(),
                        Body::Weights {
                            head: g.header,
                            data_start: g.data_start,
                            len: g.len,
                        },
                    )
                } else {
                    (file, Body::Text(text.into_bytes()))
                };
                files.push(File { path, body });
            }
            repos.push(Repo {
                id,
                files,
                behaviour: Behaviour::Public,
            });
        }
    }
    let config = |id: &str| {
        let r = repos.iter().find(|r| r.id == id).expect("a fixture repo");
        match &r.file("config.json").unwrap().body {
            Body::Text(t) => t.clone(),
            Body::Weights { .. } => unreachable!(),
        }
    };
    let awq_config = config("Qwen/Qwen2.5-0.5B-Instruct-AWQ");
    // A header that announces 100 MiB, over the 64 MiB the lookup reads.
    let mut huge = (100u64 << 20).to_le_bytes().to_vec();
    huge.extend_from_slice(b"{\"__metadata__\":{\"format\":\"pt\"}");
    let text = |t: &[u8]| Body::Text(t.to_vec());
    repos.push(Repo {
        id: "meta-llama/Llama-3.1-8B".into(),
        files: vec![
            File {
                path: "config.json".into(),
                body: text(br#"{"model_type":"llama","hidden_size":4096}"#),
            },
            File {
                path: "model.safetensors.index.json".into(),
                body: text(b"{}"),
            },
        ],
        behaviour: Behaviour::Gated,
    });
    repos.push(Repo {
        id: "mock/rate-limited".into(),
        files: vec![File {
            path: "config.json".into(),
            body: text(&awq_config),
        }],
        behaviour: Behaviour::RateLimited,
    });
    repos.push(Repo {
        id: "mock/slow".into(),
        files: vec![File {
            path: "config.json".into(),
            body: text(&awq_config),
        }],
        behaviour: Behaviour::Slow,
    });
    repos.push(Repo {
        id: "mock/huge-header".into(),
        files: vec![
            File {
                path: "config.json".into(),
                body: text(&awq_config),
            },
            File {
                path: "model.safetensors".into(),
                body: Body::Weights {
                    data_start: 8 + (100 << 20),
                    len: 8 + (100 << 20) + (1 << 30),
                    head: huge,
                },
            },
        ],
        behaviour: Behaviour::Public,
    });
    repos
}
