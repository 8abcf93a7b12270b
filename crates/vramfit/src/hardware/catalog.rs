//! The rental catalog's types (offers, platforms, currencies) and the accessors over the
//! generated tables. The GPU record is [`crate::gpu`]'s.
//!
//! Catalog records are `&'static` data compiled into the crate, so they implement
//! `Serialize` only (a `&'static [T]` cannot be deserialized from borrowed JSON).

use alloc::borrow::Cow;

use crate::units::Bytes;

use super::{generated_offers, generated_platforms};

/// A currency of the price data.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub enum Currency {
    /// Chinese yuan (元).
    #[cfg_attr(feature = "serde", serde(rename = "CNY"))]
    Cny,
    /// US dollar.
    #[cfg_attr(feature = "serde", serde(rename = "USD"))]
    Usd,
}

impl Currency {
    /// The ISO 4217 code.
    pub fn code(self) -> &'static str {
        match self {
            Currency::Cny => "CNY",
            Currency::Usd => "USD",
        }
    }

    /// Parses `CNY`/`RMB`/`USD`, case-insensitive.
    pub fn parse(field: &str, text: &str) -> crate::Result<Currency> {
        match text.trim().to_ascii_uppercase().as_str() {
            "CNY" | "RMB" => Ok(Currency::Cny),
            "USD" => Ok(Currency::Usd),
            _ => Err(crate::InputError::new(
                crate::ErrorKind::UnknownName,
                field,
                alloc::format!("unknown currency `{}`", text.trim()),
                "CNY or USD",
            )),
        }
    }
}

/// How finely an offer is billed.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Billing {
    /// Per second.
    Second,
    /// Per minute.
    Minute,
    /// Per hour.
    Hour,
}

/// On-demand or spot (interruptible).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case")
)]
pub enum Market {
    /// Pay as you go, not interrupted.
    OnDemand,
    /// Spot / preemptible / interruptible.
    Spot,
}

/// One rental offer: a machine (or a slice of one) at a reference price.
///
/// Not `#[non_exhaustive]`: callers (and tests) build their own offers for the planners.
//
// Its texts are `Cow<'static, str>`: the catalog's offers borrow `&'static` data, while offers a
// person edits or imports (`hardware::import::offers_from_json`) own theirs, so the planners take
// both and nothing is leaked. (A plain comment: the npm package's `.d.ts` copies doc comments.)
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
pub struct Offer {
    /// Offer id, e.g. `aws-p5-48xlarge`.
    pub id: Cow<'static, str>,
    /// Platform id (see [`Platform`]).
    pub provider: Cow<'static, str>,
    /// GPU catalog id.
    pub gpu: Cow<'static, str>,
    /// GPUs in one rented unit (1 for a card or a slice, 8 for an 8-GPU server).
    pub count: u32,
    /// Price of one unit per hour, in `currency`.
    pub price_per_hour: f64,
    /// Currency of the price.
    pub currency: Currency,
    /// Billing granularity.
    pub billing: Billing,
    /// On-demand or spot.
    pub market: Market,
    /// The MIG profile rented, for a MIG slice.
    pub mig_profile: Option<Cow<'static, str>>,
    /// A vGPU (software time-sliced) share, e.g. `1/4 T4 (4 GB)`.
    pub vgpu: Option<Cow<'static, str>>,
    /// Memory of a vGPU slice as the framework sees it.
    pub slice_memory_bytes: Option<Bytes>,
    /// GPU-to-GPU and node network.
    pub interconnect: Cow<'static, str>,
    /// Frameworks preinstalled in the platform's images.
    pub frameworks: Cow<'static, [Cow<'static, str>]>,
    /// Regions where the price applies.
    pub regions: Cow<'static, [Cow<'static, str>]>,
    /// True when the price is a stated estimate rather than a published list price.
    pub reference_estimate: bool,
    /// Where the price comes from.
    pub source: Cow<'static, str>,
    /// Date of the price (YYYY-MM-DD).
    pub date: Cow<'static, str>,
}

/// How a platform shares a GPU between tenants.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Slicing {
    /// Hardware MIG instances.
    Mig,
    /// Software vGPU time-slicing.
    Vgpu,
    /// Whole cards only.
    None,
}

/// A rental platform, for the decision matrix (§4.2).
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize))]
#[non_exhaustive]
pub struct Platform {
    /// Id, used by offers' `provider`.
    pub id: &'static str,
    /// English name.
    pub name: &'static str,
    /// Chinese name.
    pub name_zh: &'static str,
    /// Finest billing granularity of GPU instances.
    pub billing: Billing,
    /// GPU sharing offered.
    pub slicing: Slicing,
    /// Fastest inter-node network of its GPU instances, Gbit/s (0 when none is offered).
    pub network_gbps: u32,
    /// Frameworks preinstalled in its images.
    pub frameworks: &'static [&'static str],
    /// Response time of standard paid support for a severe issue, hours.
    pub support_response_hours: f64,
    /// Where the facts come from.
    pub source: &'static str,
    /// When they were checked.
    pub date: &'static str,
}

/// The exchange rate used to compare prices across currencies.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
#[non_exhaustive]
pub struct ExchangeRate {
    /// Yuan per US dollar.
    pub cny_per_usd: f64,
    /// Where the rate comes from.
    #[cfg_attr(feature = "serde", serde(skip_deserializing))]
    pub source: &'static str,
    /// Date of the rate.
    #[cfg_attr(feature = "serde", serde(skip_deserializing))]
    pub date: &'static str,
}

impl ExchangeRate {
    /// Smallest rate accepted: 0.01 yuan per dollar.
    pub const MIN_CNY_PER_USD: f64 = 0.01;
    /// Largest rate accepted: 1000 yuan per dollar.
    pub const MAX_CNY_PER_USD: f64 = 1000.0;

    /// A rate given by the caller, from [`Self::MIN_CNY_PER_USD`] (0.01) to
    /// [`Self::MAX_CNY_PER_USD`] (1000) yuan per dollar; others (NaN, 0, 1e-300, 1e300) give
    /// `None`. The rate has stayed between 1.5 and 8.7 since 1980; the range is wide on purpose
    /// and only keeps converted prices printable: at 1e-300 a 1 CNY price is a 300-digit dollar
    /// figure, at 1e300 it prints 0.00 and overflows the other way.
    pub fn custom(cny_per_usd: f64) -> Option<ExchangeRate> {
        (Self::MIN_CNY_PER_USD..=Self::MAX_CNY_PER_USD)
            .contains(&cny_per_usd)
            .then_some(ExchangeRate {
                cny_per_usd,
                source: "given by the user",
                date: "",
            })
    }

    /// [`Self::custom`], or an error naming `field` and the range 0.01 to 1000.
    pub fn from_request(field: &str, cny_per_usd: f64) -> crate::Result<ExchangeRate> {
        Self::custom(cny_per_usd).ok_or_else(|| {
            crate::InputError::new(
                crate::ErrorKind::OutOfRange,
                field,
                if cny_per_usd.is_finite() {
                    alloc::format!("{} is out of range", crate::units::number_text(cny_per_usd))
                } else {
                    "not a positive finite rate".into()
                },
                Self::ACCEPTED,
            )
        })
    }

    /// What [`Self::from_request`] accepts, in words.
    pub const ACCEPTED: &'static str = "yuan per US dollar, 0.01 to 1000, e.g. 7.1";

    /// Converts `amount` from one currency to another.
    pub fn convert(&self, amount: f64, from: Currency, to: Currency) -> f64 {
        match (from, to) {
            (Currency::Usd, Currency::Cny) => amount * self.cny_per_usd,
            (Currency::Cny, Currency::Usd) => amount / self.cny_per_usd,
            _ => amount,
        }
    }
}

/// Every rental offer, sorted by id.
pub fn offers() -> &'static [Offer] {
    generated_offers::OFFERS
}

/// The offer with this id.
pub fn find_offer(id: &str) -> Option<&'static Offer> {
    offers().iter().find(|o| o.id == id)
}

/// Every platform, sorted by id.
pub fn platforms() -> &'static [Platform] {
    generated_platforms::PLATFORMS
}

/// The reference USD/CNY rate of the data set.
pub fn exchange_rate() -> ExchangeRate {
    generated_offers::USD_CNY
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn guide_priced_offers_are_marked_as_estimates_and_gn7i_is_an_a10() {
        // data/README.md: a figure that is not a published list price is a reference estimate.
        for o in offers() {
            if o.source.contains("gpu-memory-selection-guide") {
                assert!(o.reference_estimate, "{}", o.id);
            }
        }
        // Alibaba's gn7i carries the A10 (help.aliyun.com instance naming: "7i ... A10, 24 GB").
        let o = offers().iter().find(|o| o.id == "aliyun-a10-1x").unwrap();
        assert_eq!(o.gpu, "a10");
    }
}
