//! Workspace-level integration tests, one binary (as ripgrep does): CLI contract and
//! data-driven estimator cases.
