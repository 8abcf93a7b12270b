//! Lookups across the data catalogs, for the estimator's input resolution.

use crate::estimate::Device;
use crate::model::Architecture;
use crate::precision::Dtype;

/// A preset's checkpoint dtype and architecture, by id (case-insensitive).
pub fn find_model(id: &str) -> Option<(Dtype, Architecture)> {
    crate::presets::find(id).map(|p| (p.dtype, p.arch))
}

/// A catalog GPU as the estimator needs it, by id.
pub fn find_device(_id: &str) -> Option<Device> {
    None
}
