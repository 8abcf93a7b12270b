//! OOM diagnosis: parsers for what a user already has, and the decision tree.
