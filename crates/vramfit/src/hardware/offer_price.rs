//! What a planned option costs as its offer states it: the offer's own price of what the
//! option rents (a card, a server, a server per node), in the offer's currency, with the date
//! and source of that price. The CLI's answer line and the site's rental line both say it so,
//! and the planner's converted figure beside it where a person asked for a currency.

use alloc::string::{String, ToString};

use super::{Currency, Offer, PlanOption};

/// An option's price as its offer states it.
#[derive(Clone, Debug, PartialEq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct OfferPrice {
    /// Price per hour of what the option rents: the offer's price of one unit times the units
    /// rented (one, or a server per node).
    pub price_per_hour: f64,
    /// The offer's own currency.
    pub currency: Currency,
    /// The date of the offer's price.
    pub date: String,
    /// Where the offer's price comes from.
    pub source: String,
}

impl PlanOption {
    /// This option's price in its offer's own terms, found among `offers` (the catalog's, or
    /// those a person typed or imported); `None` when its offer is not among them.
    pub fn offer_price(&self, offers: &[Offer]) -> Option<OfferPrice> {
        let offer = offers.iter().find(|o| o.id == self.offer)?;
        // A card or a slice rents one unit; a layout over k nodes rents k servers
        // (`rented_gpus` = k × the server's GPUs).
        let units = (self.rented_gpus / offer.count.max(1)).max(1);
        Some(OfferPrice {
            price_per_hour: offer.price_per_hour * f64::from(units),
            currency: offer.currency,
            date: offer.date.to_string(),
            source: offer.source.to_string(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hardware::{Layout, PlanOptions, find_offer, gpus, offers, plan};
    use crate::units::Bytes;

    #[test]
    fn the_offers_own_price_of_what_is_rented() {
        // Aliyun's 8 × A100 80GB server lists 64 CNY an hour; the planner ranks it in US
        // dollars at 7.1 (64 / 7.1 = 9.01). A job that needs two servers (nothing on one:
        // 100 GiB a GPU below 16 GPUs) rents two: 128 CNY, its price as listed on its date.
        let aliyun = find_offer("aliyun-a100-80gb-8x").unwrap();
        assert_eq!(
            (aliyun.price_per_hour, aliyun.currency),
            (64.0, Currency::Cny)
        );
        let two_servers = |l: Layout, _: &crate::hardware::Gpu| {
            if l.gpus >= 16 {
                Bytes::gib(40)
            } else {
                Bytes::gib(100)
            }
        };
        let got = plan(
            two_servers,
            core::slice::from_ref(aliyun),
            gpus(),
            &PlanOptions::default(),
        );
        let o = &got[0];
        assert_eq!((o.rented_gpus, o.parallelism.nodes), (16, 2));
        assert!((o.price_per_hour - 128.0 / 7.1).abs() < 1e-9);
        let own = o.offer_price(offers()).unwrap();
        assert_eq!((own.price_per_hour, own.currency), (128.0, Currency::Cny));
        assert_eq!(own.date, aliyun.date);
        assert_eq!(own.source, aliyun.source);
        assert!(o.offer_price(&[]).is_none());
    }
}
