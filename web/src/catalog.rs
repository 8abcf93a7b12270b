//! The rental offers the site plans with: the core's catalog, or one the user imported, with the
//! prices the user typed over it. Kept in the browser's `localStorage` (not in the URL: a link
//! carries the run, not someone's price list), under [`PRICES_KEY`] and [`OFFERS_KEY`].
//!
//! A pure [`Reducible`], tested natively; the App reads it from storage once and writes it back
//! after every change (see `hooks::local_get` / `local_set`).

use std::collections::BTreeMap;
use std::rc::Rc;

use vramfit::hardware::import::{check_price, offers_from_json};
use vramfit::hardware::{Offer, gpus, offers};
use vramfit::{ErrorKind, InputError};
use yew::Reducible;

/// Storage key of the typed prices: a JSON object, offer id → price per hour in the offer's
/// currency.
pub const PRICES_KEY: &str = "vramfit.prices";
/// Storage key of an imported catalog: the JSON array of its offers (absent: the built-in one).
pub const OFFERS_KEY: &str = "vramfit.offers";

/// The offers in use.
#[derive(Clone, Debug, PartialEq)]
pub struct Catalog {
    /// An imported catalog, replacing the built-in one.
    pub imported: Option<Rc<Vec<Offer>>>,
    /// Prices typed over the catalog's, by offer id, in the offer's currency.
    pub prices: BTreeMap<String, f64>,
    /// The offers the planners use: the catalog with the typed prices applied.
    pub offers: Rc<Vec<Offer>>,
    /// What could not be read back from storage (shown once, then the data is dropped).
    pub problem: Option<InputError>,
    /// Counts the resets and imports, so that a price field drops what was being typed.
    pub generation: u64,
}

impl Default for Catalog {
    fn default() -> Self {
        Catalog::new(None, BTreeMap::new(), None)
    }
}

/// A change of the catalog.
#[derive(Clone, Debug, PartialEq)]
pub enum CatalogAction {
    /// Type a price over an offer's (an already checked price).
    SetPrice(String, f64),
    /// Use the catalog's own price for this offer again.
    ResetPrice(String),
    /// Every typed price dropped; the catalog (built-in or imported) stays.
    ResetPrices,
    /// Replace the catalog with imported offers; typed prices are dropped (the file has them).
    Import(Vec<Offer>),
    /// Back to the built-in catalog and its prices.
    Builtin,
    /// Forget the storage problem.
    DismissProblem,
}

impl Catalog {
    fn new(
        imported: Option<Rc<Vec<Offer>>>,
        mut prices: BTreeMap<String, f64>,
        problem: Option<InputError>,
    ) -> Catalog {
        let base: &[Offer] = imported.as_deref().map_or(offers(), Vec::as_slice);
        // A price for an offer the catalog lacks, or one equal to the catalog's, is no edit.
        prices.retain(|id, p| {
            base.iter()
                .any(|o| o.id == id.as_str() && o.price_per_hour != *p)
        });
        let offers = Rc::new(
            base.iter()
                .map(|o| {
                    let mut o = o.clone();
                    if let Some(p) = prices.get(o.id.as_ref()) {
                        o.price_per_hour = *p;
                    }
                    o
                })
                .collect(),
        );
        Catalog {
            imported,
            prices,
            offers,
            problem,
            generation: 0,
        }
    }

    /// The catalog the stored texts describe (each absent, or as [`Catalog::stored`] wrote it).
    /// What cannot be read is dropped and reported in `problem`, never a panic.
    pub fn from_storage(prices: Option<&str>, offers_json: Option<&str>) -> Catalog {
        let mut problem = None;
        let imported = offers_json.and_then(|t| match offers_from_json(t, gpus()) {
            Ok(v) => Some(Rc::new(v)),
            Err(e) => {
                problem = Some(e);
                None
            }
        });
        let mut map = BTreeMap::new();
        if let Some(t) = prices {
            match serde_json::from_str::<BTreeMap<String, f64>>(t) {
                Ok(m) => {
                    for (id, p) in m {
                        match check_price(&format!("prices.{id}"), p) {
                            Ok(p) => {
                                map.insert(id, p);
                            }
                            Err(e) => problem = Some(e),
                        }
                    }
                }
                Err(e) => {
                    problem = Some(InputError::new(
                        ErrorKind::Malformed,
                        "prices",
                        format!("not readable ({e})"),
                        "an object of offer id → price per hour",
                    ))
                }
            }
        }
        Catalog::new(imported, map, problem)
    }

    /// What to keep in storage: the typed prices and the imported catalog (`None`: remove).
    pub fn stored(&self) -> (Option<String>, Option<String>) {
        let prices = (!self.prices.is_empty())
            .then(|| serde_json::to_string(&self.prices).unwrap_or_default());
        let offers = self
            .imported
            .as_ref()
            .map(|v| serde_json::to_string(v.as_slice()).unwrap_or_default());
        (prices, offers)
    }

    /// The offers in use, typed prices included, as a JSON file (what import reads back): an
    /// array with one offer per line (serde_json's compact writer only, which the site already
    /// carries; its pretty one would add to the download).
    pub fn export(&self) -> String {
        let lines: Vec<String> = self
            .offers
            .iter()
            .map(|o| serde_json::to_string(o).unwrap_or_default())
            .collect();
        format!("[\n{}\n]\n", lines.join(",\n"))
    }

    /// The catalog's own price of an offer (before typed prices).
    pub fn base_price(&self, id: &str) -> Option<f64> {
        let base: &[Offer] = self.imported.as_deref().map_or(offers(), Vec::as_slice);
        base.iter().find(|o| o.id == id).map(|o| o.price_per_hour)
    }
}

impl Reducible for Catalog {
    type Action = CatalogAction;

    fn reduce(self: Rc<Self>, action: CatalogAction) -> Rc<Self> {
        let s = &*self;
        let generation = s.generation;
        let renewed = |c: Catalog| Catalog {
            generation: generation + 1,
            ..c
        };
        let next = match action {
            CatalogAction::SetPrice(id, p) => {
                let mut prices = s.prices.clone();
                prices.insert(id, p);
                Catalog {
                    generation,
                    ..Catalog::new(s.imported.clone(), prices, s.problem.clone())
                }
            }
            CatalogAction::ResetPrice(id) => {
                let mut prices = s.prices.clone();
                prices.remove(&id);
                renewed(Catalog::new(s.imported.clone(), prices, s.problem.clone()))
            }
            CatalogAction::ResetPrices => renewed(Catalog::new(
                s.imported.clone(),
                BTreeMap::new(),
                s.problem.clone(),
            )),
            CatalogAction::Import(v) => {
                renewed(Catalog::new(Some(Rc::new(v)), BTreeMap::new(), None))
            }
            CatalogAction::Builtin => renewed(Catalog::new(None, BTreeMap::new(), None)),
            CatalogAction::DismissProblem => Catalog {
                problem: None,
                ..s.clone()
            },
        };
        if next == *s { self } else { Rc::new(next) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn price(c: &Catalog, id: &str) -> f64 {
        c.offers
            .iter()
            .find(|o| o.id == id)
            .map(|o| o.price_per_hour)
            .unwrap()
    }

    #[test]
    fn typed_prices_apply_persist_and_reset() {
        let c = Rc::new(Catalog::default());
        assert_eq!(c.offers.as_slice(), offers());
        assert_eq!(c.stored(), (None, None));
        // aliyun-a10-1x is 1.2 CNY per hour in the catalog.
        assert_eq!(price(&c, "aliyun-a10-1x"), 1.2);
        let c = c.reduce(CatalogAction::SetPrice("aliyun-a10-1x".into(), 0.5));
        assert_eq!(price(&c, "aliyun-a10-1x"), 0.5);
        assert_eq!(c.base_price("aliyun-a10-1x"), Some(1.2));
        let (p, o) = c.stored();
        assert_eq!(p.as_deref(), Some(r#"{"aliyun-a10-1x":0.5}"#));
        assert_eq!(o, None);
        // Read back from storage: the same catalog.
        let back = Catalog::from_storage(p.as_deref(), None);
        assert_eq!(back.offers, c.offers);
        assert_eq!(back.prices, c.prices);
        // The catalog's own price again is no edit.
        let same = c
            .clone()
            .reduce(CatalogAction::SetPrice("aliyun-a10-1x".into(), 1.2));
        assert!(same.prices.is_empty());
        let reset = c.reduce(CatalogAction::ResetPrices);
        assert_eq!(reset.offers.as_slice(), offers());
    }

    #[test]
    fn export_then_import_round_trips() {
        let c = Rc::new(Catalog::default())
            .reduce(CatalogAction::SetPrice("aliyun-t4-1x".into(), 0.25));
        let text = c.export();
        let imported = offers_from_json(&text, gpus()).unwrap();
        let d = Rc::new(Catalog::default()).reduce(CatalogAction::Import(imported));
        assert_eq!(d.offers, c.offers);
        assert!(d.prices.is_empty());
        assert_eq!(price(&d, "aliyun-t4-1x"), 0.25);
        // An imported catalog persists, and typed prices apply over it.
        let d = d.reduce(CatalogAction::SetPrice("aliyun-t4-1x".into(), 0.3));
        let (p, o) = d.stored();
        let back = Catalog::from_storage(p.as_deref(), o.as_deref());
        assert_eq!(
            (&back.offers, &back.prices, &back.imported),
            (&d.offers, &d.prices, &d.imported)
        );
        assert_eq!(back.base_price("aliyun-t4-1x"), Some(0.25));
        assert_eq!(price(&back, "aliyun-t4-1x"), 0.3);
        let generation = d.generation;
        let builtin = d.reduce(CatalogAction::Builtin);
        assert_eq!(builtin.offers, Catalog::default().offers);
        assert!(builtin.imported.is_none() && builtin.prices.is_empty());
        // A reset tells the price fields to drop what was being typed.
        assert_eq!(builtin.generation, generation + 1);
    }

    #[test]
    fn unreadable_storage_is_dropped_with_a_notice() {
        let c = Catalog::from_storage(Some("{not json"), Some("[{\"id\": 3}]"));
        assert_eq!(c.offers.as_slice(), offers());
        assert!(c.problem.is_some());
        let c = Catalog::from_storage(Some(r#"{"aliyun-t4-1x": -4, "gone": 2}"#), None);
        assert!(c.prices.is_empty(), "{:?}", c.prices);
        assert_eq!(c.problem.as_ref().unwrap().field, "prices.aliyun-t4-1x");
        let c = Rc::new(c).reduce(CatalogAction::DismissProblem);
        assert!(c.problem.is_none());
    }
}
