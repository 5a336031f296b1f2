//! Request parameters: each read once, checked with the engine's own
//! parsers, unknown or repeated ones refused.

use std::str::FromStr;

use super::ApiError;
use mancala_tb::games::oware::{self, Board, Ruleset};
use mancala_tb::games::{engehe, omweso};
use mancala_tb::tablebase::engehe::Config as EngeheConfig;
use mancala_tb::tablebase::omweso::{Config as OmwesoConfig, Objective};

pub struct Params {
    pairs: Vec<(String, String)>,
}

impl Params {
    pub fn new(pairs: Vec<(String, String)>) -> Result<Params, ApiError> {
        for (i, (name, _)) in pairs.iter().enumerate() {
            if pairs[..i].iter().any(|(earlier, _)| earlier == name) {
                return Err(ApiError::bad_request(format!(
                    "parameter '{name}' is given twice"
                )));
            }
        }
        Ok(Params { pairs })
    }

    /// Takes parameter `name` out of the request.
    fn take(&mut self, name: &str) -> Option<String> {
        let at = self.pairs.iter().position(|(n, _)| n == name)?;
        Some(self.pairs.remove(at).1)
    }

    fn parsed<T: FromStr>(&mut self, name: &str, default: T) -> Result<T, ApiError>
    where
        T::Err: ToString,
    {
        match self.take(name) {
            None => Ok(default),
            Some(text) => text.parse().map_err(|e: T::Err| {
                ApiError::bad_request(format!("parameter '{name}': {}", e.to_string()))
            }),
        }
    }

    fn required_width(&mut self) -> Result<usize, ApiError> {
        let text = self
            .take("width")
            .ok_or_else(|| ApiError::bad_request("parameter 'width' is missing"))?;
        text.parse().map_err(|_| {
            ApiError::bad_request(format!("parameter 'width': '{text}' is not a whole number"))
        })
    }

    /// `pits=1,2,0,...`: the counts, mover's first.
    fn pits(&mut self) -> Result<Vec<u32>, ApiError> {
        let text = self.take("pits").ok_or_else(|| {
            ApiError::bad_request("parameter 'pits' is missing (comma-separated counts)")
        })?;
        text.split(',')
            .map(|p| {
                p.trim().parse::<u32>().map_err(|_| {
                    ApiError::bad_request(format!(
                        "parameter 'pits': '{p}' is not a pit count (a whole number, 0 or more)"
                    ))
                })
            })
            .collect()
    }

    /// Refuses parameters nobody asked for (a typo would otherwise be
    /// answered with the defaults).
    pub fn finish(self) -> Result<(), ApiError> {
        match self.pairs.first() {
            Some((name, _)) => Err(ApiError::bad_request(format!("unknown parameter '{name}'"))),
            None => Ok(()),
        }
    }

    pub fn oware_rules(&mut self) -> Result<Ruleset, ApiError> {
        self.parsed("rules", Ruleset::Awari)
    }

    /// `random=true|false` (default false).
    pub fn random(&mut self) -> Result<bool, ApiError> {
        self.parsed("random", false)
    }

    pub fn oware_board(&mut self) -> Result<Board, ApiError> {
        oware::parse_board(&self.pits()?).map_err(|e| ApiError::bad_request(e.to_string()))
    }

    pub fn omweso(&mut self) -> Result<(OmwesoConfig, omweso::Position), ApiError> {
        let width = self.required_width()?;
        let objective = match self.take("objective").as_deref() {
            None | Some("wdl") => Objective::Wdl,
            Some("points") => Objective::Points,
            Some(other) => {
                return Err(ApiError::bad_request(format!(
                    "parameter 'objective': '{other}' is not wdl or points"
                )));
            }
        };
        let defaults = omweso::Rules::default();
        let rules = omweso::Rules {
            reverse: self.parsed("reverse", defaults.reverse)?,
            endless: self.parsed("endless", defaults.endless)?,
            okutema: self.parsed("okutema", omweso::OnOff(defaults.okutema))?.0,
        };
        let pos = omweso::Position::new(width, &self.pits()?)
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        let config = OmwesoConfig {
            width,
            seeds: pos.seeds() as usize,
            rules,
            objective,
        };
        Ok((config, pos))
    }

    pub fn engehe(&mut self) -> Result<(EngeheConfig, engehe::Position), ApiError> {
        let width = self.required_width()?;
        let rules = engehe::Rules {
            endless: self.parsed("endless", omweso::Endless::Void)?,
        };
        let pos = engehe::Position::new(width, &self.pits()?)
            .map_err(|e| ApiError::bad_request(e.to_string()))?;
        Ok((EngeheConfig { width, rules }, pos))
    }
}
