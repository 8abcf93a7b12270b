//! The security checks of `cargo xtask size` that read the built files and the site's code:
//! no `eval` in shipped JavaScript, a strict CSP that admits the page's inline scripts by their
//! hashes and reaches only the hubs of the lookup, pasted text never rendered as HTML.

use std::path::Path;

use super::{Report, files};
use crate::root;

/// No `eval(` or `new Function` in shipped JavaScript: the CSP forbids them, and a page that
/// needs them breaks under it.
pub(super) fn no_eval(path: &Path, r: &mut Report) {
    let Ok(js) = std::fs::read_to_string(path) else {
        return;
    };
    let label = path
        .strip_prefix(root())
        .unwrap_or(path)
        .display()
        .to_string();
    no_eval_in(&js, &label, r);
}

/// [`no_eval`] on the text of a script, `label` naming where it is.
fn no_eval_in(js: &str, label: &str, r: &mut Report) {
    for needle in ["eval(", "new Function"] {
        for (i, _) in js.match_indices(needle) {
            // `something.eval(` or `xeval(` is another function; only a bare `eval(` counts.
            let before = js[..i].chars().next_back();
            if needle == "eval("
                && before.is_some_and(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '$'))
            {
                continue;
            }
            let line = js[..i].lines().count().max(1);
            r.problems.push(format!(
                "{label}:{line}: `{needle}` in shipped JavaScript (the CSP forbids it)"
            ));
        }
    }
}

/// The security checks of the built site: no `eval` in its scripts, each inline script's hash
/// in the page's CSP, and a strict CSP that reaches only the hubs of the lookup.
pub(super) fn security_of_dist(dist: &Path, html: &str, r: &mut Report) {
    for f in files(dist) {
        if f.extension().is_some_and(|e| e == "js" || e == "mjs") {
            no_eval(&f, r);
        }
    }
    // Scripts written into the page (`boot.js`), which the CSP admits by their hash: the hash of
    // the script as it stands in the page, computed again here, must be the one the CSP lists.
    let stage = root().join("target/size-check");
    for (i, body) in html.split("<script").skip(1).enumerate() {
        let body = body.split_once('>').map_or("", |(_, b)| b);
        let body = body.split("</script>").next().unwrap_or("");
        let label = format!("dist/index.html, inline script {}", i + 1);
        no_eval_in(body, &label, r);
        if body.trim().is_empty() {
            continue;
        }
        let hash = std::fs::create_dir_all(&stage)
            .map_err(|e| format!("cannot create {}: {e}", stage.display()))
            .and_then(|()| crate::site::sha256_base64(&stage, body));
        match hash {
            Ok(h) if html.contains(&format!("'sha256-{h}'")) => {}
            Ok(h) => r.problems.push(format!(
                "{label}: its SHA-256 ({h}) is not in the page's CSP, so browsers will not run it"
            )),
            Err(e) => r.problems.push(format!("{label}: {e}")),
        }
    }
    // The CSP meta tag: present, no unsafe-eval or inline script but by its hash.
    match html
        .split("Content-Security-Policy")
        .nth(1)
        .and_then(|rest| rest.split("content=\"").nth(1))
        .and_then(|c| c.split('"').next())
    {
        None => r
            .problems
            .push("dist/index.html has no Content-Security-Policy meta tag".into()),
        Some(csp) => {
            let script = csp
                .split(';')
                .map(str::trim)
                .find(|d| d.starts_with("script-src"))
                .or_else(|| {
                    csp.split(';')
                        .map(str::trim)
                        .find(|d| d.starts_with("default-src"))
                })
                .unwrap_or("");
            for bad in [
                "'unsafe-eval'",
                "'unsafe-inline'",
                "*",
                "data:",
                "http:",
                "https:",
            ] {
                if script.split_whitespace().any(|w| w == bad) {
                    r.problems
                        .push(format!("the CSP's `{script}` allows {bad}"));
                }
            }
            // The page reaches the hubs of the lookup and nothing else: exactly the list the
            // site's code states (`web/src/hub/mod.rs`, `CONNECT_SRC`).
            let connect = csp
                .split(';')
                .map(str::trim)
                .find_map(|d| d.strip_prefix("connect-src "));
            match (connect, hub_connect_src()) {
                (Some(c), Some(want)) if c == want => {}
                (c, want) => r.problems.push(format!(
                    "the CSP's connect-src is {c:?}, not the hubs the site looks models up on, {want:?} (web/src/hub/mod.rs)"
                )),
            }
            if !csp.contains("object-src 'none'") {
                r.notes
                    .push("the CSP does not say `object-src 'none'`".into());
            }
        }
    }
}

/// `CONNECT_SRC` of `web/src/hub/mod.rs`: the origins the site's hub lookup may reach.
fn hub_connect_src() -> Option<String> {
    let src = std::fs::read_to_string(root().join("web/src/hub/mod.rs")).ok()?;
    let rest = src.split("pub const CONNECT_SRC: &str =").nth(1)?;
    Some(rest.split('"').nth(1)?.to_string())
}

/// Pasted text is rendered only as text: Yew escapes by default, so flag anything that writes
/// HTML from a string.
pub(super) fn text_only_rendering(r: &mut Report) {
    for f in files(&root().join("web/src")) {
        if f.extension().is_none_or(|e| e != "rs") {
            continue;
        }
        let Ok(src) = std::fs::read_to_string(&f) else {
            continue;
        };
        let rel = f.strip_prefix(root()).unwrap_or(&f).display().to_string();
        for (n, line) in src.lines().enumerate() {
            let code = line.split("//").next().unwrap_or("");
            if code.contains("from_html_unchecked") || code.contains("dangerously") {
                r.problems.push(format!(
                    "{rel}:{}: HTML built from a string: {}",
                    n + 1,
                    line.trim()
                ));
            } else if code.contains("inner_html") {
                // Clearing a node (`set_inner_html("")`) writes no markup.
                if code.contains("set_inner_html(\"\")") {
                    r.notes.push(format!(
                        "{rel}:{}: clears a node with set_inner_html(\"\") (no markup)",
                        n + 1
                    ));
                } else {
                    r.problems.push(format!(
                        "{rel}:{}: inner_html with content: {}",
                        n + 1,
                        line.trim()
                    ));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::hub_connect_src;

    /// The CSP check's list is read from the site's code, and the shell says the same.
    #[test]
    fn the_hubs_the_page_may_reach_are_the_sites_list() {
        let want = hub_connect_src().expect("CONNECT_SRC in web/src/hub/mod.rs");
        assert!(want.starts_with("'self' huggingface.co "), "{want}");
        let html = std::fs::read_to_string(crate::root().join("www/index.html")).unwrap();
        assert!(
            html.contains(&format!("connect-src {want};")),
            "www/index.html"
        );
    }
}
