//! A tiny static-file HTTP/1.1 server (std only) for `cargo xtask serve` and the end-to-end
//! tests. It serves one folder under one path prefix, the way GitHub Pages serves a project
//! site under `/<repo>/`, so that a URL that is not relative fails here as it would there.

use std::io::{BufRead, BufReader, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::{Component, Path, PathBuf};
use std::sync::Arc;

use crate::Result;

/// Binds `127.0.0.1:port` (port 0: a free port).
pub fn bind(port: u16) -> Result<(TcpListener, SocketAddr)> {
    let listener = TcpListener::bind(("127.0.0.1", port))
        .map_err(|e| format!("cannot listen on 127.0.0.1:{port}: {e}"))?;
    let addr = listener.local_addr().map_err(|e| e.to_string())?;
    Ok((listener, addr))
}

/// Serves `dir` under `prefix` (which starts and ends with `/`) until the process ends, one
/// thread per connection.
pub fn serve(listener: TcpListener, dir: PathBuf, prefix: &str) {
    let site = Arc::new((dir, prefix.to_string()));
    for stream in listener.incoming().flatten() {
        let site = Arc::clone(&site);
        std::thread::spawn(move || {
            let _ = handle(stream, &site.0, &site.1);
        });
    }
}

/// Starts [`serve`] on a background thread.
pub fn spawn(listener: TcpListener, dir: PathBuf, prefix: &str) {
    let prefix = prefix.to_string();
    std::thread::spawn(move || serve(listener, dir, &prefix));
}

fn handle(stream: TcpStream, dir: &Path, prefix: &str) -> std::io::Result<()> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut request_line = String::new();
    reader.read_line(&mut request_line)?;
    // Drain the headers; nothing in them changes the answer.
    let mut header = String::new();
    let mut header_bytes = 0;
    loop {
        header.clear();
        let n = reader.read_line(&mut header)?;
        header_bytes += n;
        if n == 0 || header == "\r\n" || header == "\n" || header_bytes > 64 * 1024 {
            break;
        }
    }
    let mut parts = request_line.split_whitespace();
    let (method, target) = (parts.next().unwrap_or(""), parts.next().unwrap_or("/"));
    let head_only = method == "HEAD";
    let mut out = stream;
    if method != "GET" && !head_only {
        return respond(
            &mut out,
            405,
            "text/plain",
            b"method not allowed\n",
            false,
            &[],
        );
    }
    let path = target.split(['?', '#']).next().unwrap_or("/");
    let path = percent_decode(path);
    if path == prefix.trim_end_matches('/') && prefix != "/" {
        return respond(
            &mut out,
            301,
            "text/plain",
            b"",
            head_only,
            &[("Location", prefix)],
        );
    }
    let Some(rest) = path.strip_prefix(prefix) else {
        return not_found(&mut out, dir, head_only);
    };
    let Some(mut file) = safe_join(dir, rest) else {
        return not_found(&mut out, dir, head_only);
    };
    if file.is_dir() {
        if !path.ends_with('/') {
            let to = format!("{path}/");
            return respond(
                &mut out,
                301,
                "text/plain",
                b"",
                head_only,
                &[("Location", &to)],
            );
        }
        file.push("index.html");
    }
    match std::fs::read(&file) {
        Ok(body) => respond(&mut out, 200, mime(&file), &body, head_only, &[]),
        Err(_) => not_found(&mut out, dir, head_only),
    }
}

fn not_found(out: &mut TcpStream, dir: &Path, head_only: bool) -> std::io::Result<()> {
    // Like GitHub Pages: the site's own 404.html, with status 404.
    let body = std::fs::read(dir.join("404.html")).unwrap_or_else(|_| b"not found\n".to_vec());
    respond(out, 404, "text/html; charset=utf-8", &body, head_only, &[])
}

fn respond(
    out: &mut TcpStream,
    status: u16,
    content_type: &str,
    body: &[u8],
    head_only: bool,
    extra: &[(&str, &str)],
) -> std::io::Result<()> {
    let reason = match status {
        200 => "OK",
        301 => "Moved Permanently",
        404 => "Not Found",
        _ => "Method Not Allowed",
    };
    let mut head = format!(
        "HTTP/1.1 {status} {reason}\r\nContent-Type: {content_type}\r\nContent-Length: {}\r\n\
         Cache-Control: no-cache\r\nX-Content-Type-Options: nosniff\r\nConnection: close\r\n",
        body.len()
    );
    for (k, v) in extra {
        head.push_str(&format!("{k}: {v}\r\n"));
    }
    head.push_str("\r\n");
    out.write_all(head.as_bytes())?;
    if !head_only {
        out.write_all(body)?;
    }
    out.flush()
}

/// `dir/rest`, or `None` when `rest` tries to leave `dir`.
fn safe_join(dir: &Path, rest: &str) -> Option<PathBuf> {
    let rel = Path::new(rest);
    rel.components()
        .all(|c| matches!(c, Component::Normal(_)))
        .then(|| dir.join(rel))
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if bytes[i] == b'%'
            && i + 2 < bytes.len()
            && let (Some(h), Some(l)) = (hex(bytes[i + 1]), hex(bytes[i + 2]))
        {
            out.push((h * 16 + l) as u8);
            i += 3;
            continue;
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The content type of a file, by extension.
pub fn mime(path: &Path) -> &'static str {
    match path.extension().and_then(|e| e.to_str()).unwrap_or("") {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "wasm" => "application/wasm",
        // A module precompressed by `cargo xtask dist`, which boot.js inflates itself: a file
        // like any other, with no `Content-Encoding` (boot.js copes with a host that adds one).
        "gz" => "application/gzip",
        "json" | "map" => "application/json",
        "webmanifest" => "application/manifest+json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" | "md" => "text/plain; charset=utf-8",
        "woff2" => "font/woff2",
        _ => "application/octet-stream",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_percent_escapes() {
        assert_eq!(percent_decode("/a%20b/%7e"), "/a b/~");
        assert_eq!(percent_decode("/bad%2"), "/bad%2");
        assert_eq!(percent_decode("%"), "%");
    }

    #[test]
    fn refuses_to_leave_the_folder() {
        let d = Path::new("/srv");
        assert_eq!(safe_join(d, "a/b.js"), Some(PathBuf::from("/srv/a/b.js")));
        assert_eq!(safe_join(d, "../etc/passwd"), None);
        assert_eq!(safe_join(d, "/etc/passwd"), None);
    }

    #[test]
    fn wasm_has_its_mime_type() {
        assert_eq!(mime(Path::new("x_bg.wasm")), "application/wasm");
        assert_eq!(mime(Path::new("x_bg.wasm.gz")), "application/gzip");
        assert_eq!(
            mime(Path::new("manifest.webmanifest")),
            "application/manifest+json"
        );
    }
}
