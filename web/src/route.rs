//! The URL: `#/<view>?<key>=<value>&…`. Hash routing keeps the site one static page (no
//! server rewrite needed on GitHub Pages), and the query after the view holds the whole state,
//! so any view is shareable and reopens exactly.

/// The views of the site.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum View {
    /// The calculator.
    #[default]
    Calc,
    /// GPUs and rental offers that fit.
    Fit,
    /// Which models fit a card.
    Models,
    /// The MIG planner.
    Mig,
    /// OOM diagnosis.
    Diagnose,
    /// Questions and answers.
    Faq,
    /// This device's GPU, through WebGPU.
    Device,
}

impl View {
    /// Every view, in menu order.
    pub const ALL: [View; 7] = [
        View::Calc,
        View::Fit,
        View::Models,
        View::Mig,
        View::Diagnose,
        View::Faq,
        View::Device,
    ];

    /// The view's path in the URL.
    pub fn slug(self) -> &'static str {
        match self {
            View::Calc => "calc",
            View::Fit => "fit",
            View::Models => "models",
            View::Mig => "mig",
            View::Diagnose => "diagnose",
            View::Faq => "faq",
            View::Device => "device",
        }
    }

    /// The text of the view's name.
    pub fn title_key(self) -> crate::i18n::Key {
        match self {
            View::Calc => key!("view.calc"),
            View::Fit => key!("view.fit"),
            View::Models => key!("view.models"),
            View::Mig => key!("view.mig"),
            View::Diagnose => key!("view.diagnose"),
            View::Faq => key!("view.faq"),
            View::Device => key!("view.device"),
        }
    }

    fn from_slug(s: &str) -> Option<View> {
        View::ALL.into_iter().find(|v| v.slug() == s)
    }
}

/// A parsed URL hash.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Route {
    /// The view.
    pub view: View,
    /// The query, in order, decoded.
    pub params: Vec<(String, String)>,
    /// What could not be read (shown to the user as a notice).
    pub problems: Vec<String>,
}

impl Route {
    /// Parses `#/view?query` (the leading `#` optional). An empty hash is the calculator.
    pub fn parse(hash: &str) -> Route {
        let h = hash.strip_prefix('#').unwrap_or(hash);
        let h = h.strip_prefix('/').unwrap_or(h);
        let (path, query) = h.split_once('?').unwrap_or((h, ""));
        let mut problems = Vec::new();
        let view = if path.is_empty() {
            View::Calc
        } else {
            View::from_slug(path.trim_end_matches('/')).unwrap_or_else(|| {
                problems.push(format!("view \"{}\"", decode(path)));
                View::Calc
            })
        };
        let mut params = Vec::new();
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
            params.push((decode(k), decode(v)));
        }
        Route {
            view,
            params,
            problems,
        }
    }

    /// `#/view?k=v&…`.
    pub fn hash(view: View, params: &[(String, String)]) -> String {
        let mut s = format!("#/{}", view.slug());
        for (i, (k, v)) in params.iter().enumerate() {
            s.push(if i == 0 { '?' } else { '&' });
            s.push_str(&encode(k));
            s.push('=');
            s.push_str(&encode(v));
        }
        s
    }

    /// The value of `key`, if present.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

/// Percent-encodes everything but unreserved characters (RFC 3986).
pub fn encode(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'~') {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// Decodes percent escapes and `+` (as a space); malformed escapes stay as written.
pub fn decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        let hex = |c: u8| (c as char).to_digit(16);
        match b[i] {
            b'%' => {
                match (
                    b.get(i + 1).and_then(|&c| hex(c)),
                    b.get(i + 2).and_then(|&c| hex(c)),
                ) {
                    (Some(h), Some(l)) => {
                        out.push((h * 16 + l) as u8);
                        i += 3;
                        continue;
                    }
                    _ => out.push(b'%'),
                }
            }
            b'+' => out.push(b' '),
            c => out.push(c),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn p(k: &str, v: &str) -> (String, String) {
        (k.to_string(), v.to_string())
    }

    #[test]
    fn round_trips() {
        let params = vec![
            p("model", "llama-3.1-8b"),
            p("gpu_memory", "80 GB"),
            p("q", "a&b=c/中"),
        ];
        let h = Route::hash(View::Fit, &params);
        assert_eq!(
            h,
            "#/fit?model=llama-3.1-8b&gpu_memory=80%20GB&q=a%26b%3Dc%2F%E4%B8%AD"
        );
        let r = Route::parse(&h);
        assert_eq!(r.view, View::Fit);
        assert_eq!(r.params, params);
        assert!(r.problems.is_empty());
    }

    #[test]
    fn empty_and_malformed() {
        assert_eq!(Route::parse("").view, View::Calc);
        assert_eq!(Route::parse("#").view, View::Calc);
        let r = Route::parse("#/nowhere?batch=%ZZ&x");
        assert_eq!(r.view, View::Calc);
        assert_eq!(r.problems, vec!["view \"nowhere\"".to_string()]);
        assert_eq!(r.params, vec![p("batch", "%ZZ"), p("x", "")]);
        assert_eq!(decode("%"), "%");
        assert_eq!(decode("%4"), "%4");
        assert_eq!(decode("a+b"), "a b");
    }
}
