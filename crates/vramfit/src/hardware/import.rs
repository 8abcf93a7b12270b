//! Offers a person brings: a price typed over the catalog's, or a whole catalog read from JSON.
//!
//! The JSON is what the catalog's offers serialize to (the npm package's `offers()`, the site's
//! export): an array of offer objects, or an object whose `offers` key holds that array. Each
//! record is checked field by field, so an error names the record and the field
//! (`offers[2].price_per_hour`) and says what is accepted; the offers returned own their texts
//! (`Cow::Owned`), so reading a catalog leaks nothing.

use alloc::borrow::Cow;
use alloc::format;
use alloc::string::{String, ToString};
use alloc::vec::Vec;

use serde_json::{Map, Value};

use crate::error::{ErrorKind, InputError, Result};
use crate::hardware::{Billing, Currency, Gpu, Market, Offer};
use crate::units::Bytes;

/// The highest price per hour accepted (in the offer's currency).
pub const MAX_PRICE: f64 = 1e6;
/// The most offers one catalog may hold.
pub const MAX_OFFERS: usize = 10_000;
/// The longest catalog text read, in bytes.
pub const MAX_JSON_BYTES: usize = 4 << 20;
/// The most GPUs in one rented unit.
pub const MAX_COUNT: u64 = 64;

const PRICE_ACCEPTED: &str =
    "a price per hour above 0 and at most 1000000, in the offer's currency";

/// The fields of an offer record, as the JSON names them.
pub const OFFER_FIELDS: [&str; 17] = [
    "id",
    "provider",
    "gpu",
    "count",
    "price_per_hour",
    "currency",
    "billing",
    "market",
    "mig_profile",
    "vgpu",
    "slice_memory_bytes",
    "interconnect",
    "frameworks",
    "regions",
    "reference_estimate",
    "source",
    "date",
];

/// Checks a price per hour (`field` names it in the error): finite, above 0, at most
/// [`MAX_PRICE`].
pub fn check_price(field: &str, price: f64) -> Result<f64> {
    if price.is_finite() && price > 0.0 && price <= MAX_PRICE {
        Ok(price)
    } else {
        Err(InputError::new(
            ErrorKind::OutOfRange,
            field,
            format!("{price} is out of range"),
            PRICE_ACCEPTED,
        ))
    }
}

/// Parses a price per hour as a person types it (`2.5`, ` 0.8 `); errors name `field`.
pub fn parse_price(field: &str, text: &str) -> Result<f64> {
    let t = text.trim();
    if t.is_empty() {
        return Err(InputError::new(
            ErrorKind::Missing,
            field,
            "empty",
            PRICE_ACCEPTED,
        ));
    }
    match crate::units::parse_number(t) {
        Some(v) => check_price(field, v),
        None => Err(InputError::new(
            ErrorKind::NotANumber,
            field,
            format!("`{t}` is not a number"),
            PRICE_ACCEPTED,
        )),
    }
}

/// Reads a catalog of offers from JSON (see the module documentation). Every GPU must be in
/// `gpus`, every MIG profile one of its GPU's, ids unique. The first bad record stops the
/// reading with an error naming it.
pub fn offers_from_json(text: &str, gpus: &[Gpu]) -> Result<Vec<Offer>> {
    let accepted_top = "a JSON array of offers, or an object with an `offers` array";
    if text.len() > MAX_JSON_BYTES {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            "offers",
            format!("{} bytes", text.len()),
            format!("at most {MAX_JSON_BYTES} bytes"),
        ));
    }
    let value: Value = serde_json::from_str(text).map_err(|e| {
        InputError::new(
            ErrorKind::Malformed,
            "offers",
            format!("not JSON ({e})"),
            accepted_top,
        )
    })?;
    let list = match value {
        Value::Array(a) => a,
        Value::Object(mut o) => match o.remove("offers") {
            Some(Value::Array(a)) => a,
            _ => {
                return Err(InputError::new(
                    ErrorKind::Malformed,
                    "offers",
                    "an object without an `offers` array",
                    accepted_top,
                ));
            }
        },
        _ => {
            return Err(InputError::new(
                ErrorKind::Malformed,
                "offers",
                "not an array",
                accepted_top,
            ));
        }
    };
    if list.is_empty() || list.len() > MAX_OFFERS {
        return Err(InputError::new(
            ErrorKind::OutOfRange,
            "offers",
            format!("{} offers", list.len()),
            format!("1 to {MAX_OFFERS} offers"),
        ));
    }
    let mut out: Vec<Offer> = Vec::with_capacity(list.len());
    for (i, v) in list.iter().enumerate() {
        let offer = record(i, v, gpus)?;
        if let Some(j) = out.iter().position(|o| o.id == offer.id) {
            return Err(InputError::new(
                ErrorKind::Conflict,
                format!("offers[{i}].id"),
                format!("`{}` is also the id of record {}", offer.id, j + 1),
                "an id no other offer of the catalog has",
            ));
        }
        out.push(offer);
    }
    Ok(out)
}

/// One record's reader: each getter names `offers[i].key` in its errors.
struct Rec<'a> {
    i: usize,
    id: String,
    map: &'a Map<String, Value>,
}

impl Rec<'_> {
    fn err(
        &self,
        kind: ErrorKind,
        key: &str,
        problem: impl Into<String>,
        accepted: impl Into<String>,
    ) -> InputError {
        let problem = problem.into();
        let problem = if self.id.is_empty() {
            format!("record {}: {problem}", self.i + 1)
        } else {
            format!("record {} (`{}`): {problem}", self.i + 1, self.id)
        };
        InputError::new(kind, format!("offers[{}].{key}", self.i), problem, accepted)
    }

    fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key).filter(|v| !v.is_null())
    }

    fn text(&self, key: &str, max: usize, required: bool) -> Result<Option<String>> {
        let accepted = if required {
            format!("a text of 1 to {max} characters")
        } else {
            format!("a text of at most {max} characters, or null")
        };
        match self.get(key) {
            None if required => Err(self.err(ErrorKind::Missing, key, "missing", accepted)),
            None => Ok(None),
            Some(Value::String(s)) => {
                let n = s.chars().count();
                if (required && s.trim().is_empty()) || n > max {
                    Err(self.err(
                        ErrorKind::OutOfRange,
                        key,
                        format!("{n} characters"),
                        accepted,
                    ))
                } else {
                    Ok(Some(s.clone()))
                }
            }
            Some(v) => Err(self.err(
                ErrorKind::Malformed,
                key,
                format!("{} is not a text", kind(v)),
                accepted,
            )),
        }
    }

    fn texts(&self, key: &str) -> Result<Vec<Cow<'static, str>>> {
        let accepted = "an array of at most 50 texts of at most 100 characters";
        match self.get(key) {
            None => Ok(Vec::new()),
            Some(Value::Array(a)) if a.len() <= 50 => a
                .iter()
                .map(|v| match v {
                    Value::String(s) if s.chars().count() <= 100 => Ok(Cow::Owned(s.clone())),
                    v => Err(self.err(
                        ErrorKind::Malformed,
                        key,
                        format!("an item is {}", kind(v)),
                        accepted,
                    )),
                })
                .collect(),
            Some(v) => Err(self.err(
                ErrorKind::Malformed,
                key,
                format!("{} is not such an array", kind(v)),
                accepted,
            )),
        }
    }

    fn choice<T: Copy>(&self, key: &str, default: Option<T>, choices: &[(&str, T)]) -> Result<T> {
        let names: Vec<&str> = choices.iter().map(|(n, _)| *n).collect();
        let accepted = format!("one of {}", names.join(", "));
        match (self.get(key), default) {
            (None, Some(d)) => Ok(d),
            (None, None) => Err(self.err(ErrorKind::Missing, key, "missing", accepted)),
            (Some(Value::String(s)), _) => choices
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(s.trim()))
                .map(|(_, v)| *v)
                .ok_or_else(|| self.err(ErrorKind::UnknownName, key, format!("`{s}`"), accepted)),
            (Some(v), _) => Err(self.err(
                ErrorKind::Malformed,
                key,
                format!("{} is not a text", kind(v)),
                accepted,
            )),
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a text",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// The offer in record `i` of the list, each field read and checked in turn (the first field
/// that fails names itself in the error), its GPU one of `gpus`.
fn record(i: usize, v: &Value, gpus: &[Gpu]) -> Result<Offer> {
    let Value::Object(map) = v else {
        return Err(InputError::new(
            ErrorKind::Malformed,
            format!("offers[{i}]"),
            format!("record {}: {} is not an offer", i + 1, kind(v)),
            "an object with id, provider, gpu, count, price_per_hour, currency",
        ));
    };
    let id = match map.get("id") {
        Some(Value::String(s)) => s.clone(),
        _ => String::new(),
    };
    let r = Rec { i, id, map };
    if let Some(k) = map.keys().find(|k| !OFFER_FIELDS.contains(&k.as_str())) {
        return Err(r.err(
            ErrorKind::UnknownName,
            k,
            "unknown field",
            OFFER_FIELDS.join(", "),
        ));
    }
    let id = r.text("id", 100, true)?.unwrap_or_default();
    let provider = r.text("provider", 100, true)?.unwrap_or_default();
    let gpu = r.gpu(gpus)?;
    let count = r.count()?;
    let price_per_hour = r.price()?;
    let (currency, billing, market) = r.terms()?;
    let mig_profile = r.mig_profile(gpu, count)?;
    let vgpu = r.text("vgpu", 100, false)?;
    let slice_memory_bytes = r.slice_memory(gpu, mig_profile.is_some())?;
    let reference_estimate = r.reference_estimate()?;
    Ok(Offer {
        id: Cow::Owned(id.trim().to_string()),
        provider: Cow::Owned(provider.trim().to_string()),
        gpu: Cow::Borrowed(gpu.id),
        count,
        price_per_hour,
        currency,
        billing,
        market,
        mig_profile: mig_profile.map(Cow::Owned),
        vgpu: vgpu.map(Cow::Owned),
        slice_memory_bytes,
        interconnect: Cow::Owned(r.text("interconnect", 200, false)?.unwrap_or_default()),
        frameworks: Cow::Owned(r.texts("frameworks")?),
        regions: Cow::Owned(r.texts("regions")?),
        reference_estimate,
        source: Cow::Owned(r.text("source", 2000, false)?.unwrap_or_default()),
        date: Cow::Owned(r.text("date", 20, false)?.unwrap_or_default()),
    })
}

impl Rec<'_> {
    /// `gpu`: one of `gpus`, by id.
    fn gpu<'g>(&self, gpus: &'g [Gpu]) -> Result<&'g Gpu> {
        let gpu_id = self.text("gpu", 100, true)?.unwrap_or_default();
        gpus.iter().find(|g| g.id == gpu_id.trim()).ok_or_else(|| {
            let ids: Vec<&str> = gpus.iter().map(|g| g.id).collect();
            self.err(
                ErrorKind::UnknownGpu,
                "gpu",
                format!("unknown GPU `{gpu_id}`"),
                format!("a catalog GPU id: {}", ids.join(", ")),
            )
        })
    }

    /// `count`: a whole number of GPUs from 1 to [`MAX_COUNT`].
    fn count(&self) -> Result<u32> {
        let count_accepted = format!("a whole number of GPUs from 1 to {MAX_COUNT}");
        Ok(match self.get("count") {
            None => return Err(self.err(ErrorKind::Missing, "count", "missing", count_accepted)),
            Some(v) => v
                .as_u64()
                .filter(|c| (1..=MAX_COUNT).contains(c))
                .ok_or_else(|| {
                    self.err(
                        ErrorKind::OutOfRange,
                        "count",
                        format!("{v} is out of range"),
                        count_accepted,
                    )
                })? as u32,
        })
    }

    /// `price_per_hour`: a number [`check_price`] accepts.
    fn price(&self) -> Result<f64> {
        match self.get("price_per_hour") {
            None => Err(self.err(
                ErrorKind::Missing,
                "price_per_hour",
                "missing",
                PRICE_ACCEPTED,
            )),
            Some(Value::Number(n)) => {
                let p = n.as_f64().unwrap_or(f64::NAN);
                check_price("price_per_hour", p)
                    .map_err(|e| self.err(e.kind, "price_per_hour", e.problem, e.accepted))
            }
            Some(v) => Err(self.err(
                ErrorKind::NotANumber,
                "price_per_hour",
                format!("{} is not a number", kind(v)),
                PRICE_ACCEPTED,
            )),
        }
    }

    /// `currency` (required), `billing` (by the hour unless given) and `market` (on demand
    /// unless given), in that order.
    fn terms(&self) -> Result<(Currency, Billing, Market)> {
        let currency = self.choice(
            "currency",
            None,
            &[
                ("CNY", Currency::Cny),
                ("RMB", Currency::Cny),
                ("USD", Currency::Usd),
            ],
        )?;
        let billing = self.choice(
            "billing",
            Some(Billing::Hour),
            &[
                ("second", Billing::Second),
                ("minute", Billing::Minute),
                ("hour", Billing::Hour),
            ],
        )?;
        let market = self.choice(
            "market",
            Some(Market::OnDemand),
            &[("on-demand", Market::OnDemand), ("spot", Market::Spot)],
        )?;
        Ok((currency, billing, market))
    }

    /// `mig_profile`: null, or a profile of `gpu` on an offer of one slice (`count` 1).
    fn mig_profile(&self, gpu: &Gpu, count: u32) -> Result<Option<String>> {
        let mig_profile = self.text("mig_profile", 20, false)?;
        if let Some(p) = &mig_profile {
            if gpu.mig_profile(p).is_none() {
                let names: Vec<&str> = gpu.mig_profiles().iter().map(|p| p.name).collect();
                return Err(self.err(
                    ErrorKind::UnknownName,
                    "mig_profile",
                    format!("{} has no MIG profile `{p}`", gpu.id),
                    if names.is_empty() {
                        format!("null: {} has no MIG", gpu.id)
                    } else {
                        format!("null or one of {}", names.join(", "))
                    },
                ));
            }
            if count != 1 {
                return Err(self.err(
                    ErrorKind::Conflict,
                    "count",
                    format!("{count} with a MIG profile"),
                    "1: a MIG offer rents one slice",
                ));
            }
        }
        Ok(mig_profile)
    }

    /// `slice_memory_bytes`: null, or bytes from 1 to `gpu`'s memory on an offer without a MIG
    /// profile (`mig` says whether it has one).
    fn slice_memory(&self, gpu: &Gpu, mig: bool) -> Result<Option<Bytes>> {
        let slice_accepted = format!(
            "null, or bytes from 1 to the GPU's {} ({} B), and no mig_profile",
            gpu.memory.display_gib(),
            gpu.memory.get()
        );
        let Some(v) = self.get("slice_memory_bytes") else {
            return Ok(None);
        };
        let b = v
            .as_u64()
            .filter(|b| (1..=gpu.memory.get()).contains(b))
            .ok_or_else(|| {
                self.err(
                    ErrorKind::OutOfRange,
                    "slice_memory_bytes",
                    format!("{v} is out of range"),
                    slice_accepted.clone(),
                )
            })?;
        if mig {
            return Err(self.err(
                ErrorKind::Conflict,
                "slice_memory_bytes",
                "given with a mig_profile",
                slice_accepted,
            ));
        }
        Ok(Some(Bytes::new(b)))
    }

    /// `reference_estimate`: a boolean, false unless given.
    fn reference_estimate(&self) -> Result<bool> {
        match self.get("reference_estimate") {
            None => Ok(false),
            Some(Value::Bool(b)) => Ok(*b),
            Some(v) => Err(self.err(
                ErrorKind::Malformed,
                "reference_estimate",
                format!("{} is not a boolean", kind(v)),
                "true or false",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::{gpus, offers};

    fn field(text: &str) -> String {
        offers_from_json(text, gpus()).unwrap_err().field
    }

    const ONE: &str = r#"[{"id": "mine", "provider": "home", "gpu": "rtx-4090", "count": 2,
        "price_per_hour": 0.9, "currency": "USD"}]"#;

    #[test]
    fn a_minimal_record_gets_the_defaults() {
        let o = offers_from_json(ONE, gpus()).unwrap();
        assert_eq!(o.len(), 1);
        let o = &o[0];
        assert_eq!(
            (&*o.id, &*o.provider, &*o.gpu),
            ("mine", "home", "rtx-4090")
        );
        assert_eq!((o.count, o.price_per_hour), (2, 0.9));
        assert_eq!(
            (o.currency, o.billing, o.market),
            (Currency::Usd, Billing::Hour, Market::OnDemand)
        );
        assert!(o.mig_profile.is_none() && o.frameworks.is_empty() && !o.reference_estimate);
        // Owned texts: nothing borrowed from the input but the GPU's catalog id.
        assert!(matches!(o.id, Cow::Owned(_)) && matches!(o.gpu, Cow::Borrowed(_)));
        let wrapped = format!(r#"{{"offers": {ONE}}}"#);
        assert_eq!(offers_from_json(&wrapped, gpus()).unwrap()[0].id, "mine");
    }

    #[cfg(feature = "serde")]
    #[test]
    fn the_catalog_round_trips_through_its_own_json() {
        let text = serde_json::to_string(offers()).unwrap();
        let back = offers_from_json(&text, gpus()).unwrap();
        assert_eq!(back.as_slice(), offers());
    }

    #[test]
    fn each_bad_field_is_named_with_its_record() {
        let with = |k: &str, v: &str| {
            ONE.replacen(
                &format!("\"{k}\": "),
                &format!("\"{k}\": {v}, \"x_{k}\": "),
                1,
            )
        };
        // price: negative, zero, too high, a text.
        for bad in ["-1", "0", "1e7", "\"cheap\""] {
            let text = ONE.replace("0.9", bad);
            let e = offers_from_json(&text, gpus()).unwrap_err();
            assert_eq!(e.field, "offers[0].price_per_hour", "{bad}");
            assert!(e.problem.starts_with("record 1 (`mine`)"), "{}", e.problem);
            assert!(e.accepted.contains("at most 1000000"), "{}", e.accepted);
        }
        assert_eq!(field(&ONE.replace("rtx-4090", "gtx-9999")), "offers[0].gpu");
        assert_eq!(
            field(&ONE.replace("\"count\": 2", "\"count\": 0")),
            "offers[0].count"
        );
        assert_eq!(
            field(&ONE.replace("\"count\": 2", "\"count\": 1.5")),
            "offers[0].count"
        );
        assert_eq!(field(&ONE.replace("\"count\": 2,", "")), "offers[0].count");
        assert_eq!(field(&ONE.replace("USD", "EUR")), "offers[0].currency");
        assert_eq!(
            field(&ONE.replace("\"id\": \"mine\"", "\"id\": \"\"")),
            "offers[0].id"
        );
        assert_eq!(field(&with("count", "3")), "offers[0].x_count");
        // MIG: a profile of another card, and a slice of more than one GPU.
        let mig = ONE
            .replace("rtx-4090", "a100-sxm4-80gb")
            .replace("\"count\": 2", "\"count\": 1, \"mig_profile\": \"1g.5gb\"");
        assert_eq!(field(&mig), "offers[0].mig_profile");
        let mig = mig.replace("1g.5gb", "1g.10gb");
        assert!(offers_from_json(&mig, gpus()).is_ok());
        assert_eq!(
            field(&mig.replace("\"count\": 1", "\"count\": 2")),
            "offers[0].count"
        );
        // A vGPU slice larger than its card (24 GB on a 16 GB T4).
        let slice = ONE.replace("rtx-4090", "t4").replace(
            "\"count\": 2",
            "\"count\": 1, \"slice_memory_bytes\": 24000000000",
        );
        assert_eq!(field(&slice), "offers[0].slice_memory_bytes");
        // The second record is named as such, and a repeated id points at the first.
        let two = ONE.replace("}]", "}, {\"id\": \"b\"}]");
        let e = offers_from_json(&two, gpus()).unwrap_err();
        assert_eq!(
            (e.field.as_str(), e.problem.as_str()),
            ("offers[1].provider", "record 2 (`b`): missing")
        );
        let dup = ONE.replace("}]", &format!("}}, {}", &ONE[1..]));
        let e = offers_from_json(&dup, gpus()).unwrap_err();
        assert_eq!(e.field, "offers[1].id");
        assert!(e.problem.contains("record 1"), "{}", e.problem);
        // Not a catalog at all.
        for t in ["", "{", "3", "{}", "[]", "[3]"] {
            let f = field(t);
            assert!(f == "offers" || f == "offers[0]", "{t}: {f}");
        }
    }

    #[test]
    fn typed_prices() {
        assert_eq!(parse_price("p", " 2.5 ").unwrap(), 2.5);
        for bad in ["", "abc", "-1", "0", "NaN", "inf", "1e9"] {
            let e = parse_price("p", bad).unwrap_err();
            assert_eq!(e.field, "p", "{bad}");
        }
    }
}
