//! GPUs, MIG profiles, rental offers, and the planners that match an estimate to them.
