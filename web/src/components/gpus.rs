//! The GPU catalog as the views use it.

use super::chart::Line;

/// Memory lines for the context chart: a few common card sizes from the catalog.
pub fn chart_lines() -> Vec<Line> {
    Vec::new()
}
