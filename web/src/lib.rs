//! The vramfit site. The only crate that knows about the DOM.
