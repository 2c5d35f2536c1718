//! Time controls (FIDE Art. 6.3, Appendices A.1 and B.1; USCF delay).

use serde::{Deserialize, Serialize};

use crate::domain::FieldError;

/// Longest time any single period may add: 24 hours.
const MAX_PERIOD_MS: u64 = 24 * 60 * 60 * 1000;

/// One period of a time control.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Period {
    /// Time added to the clock when the period starts.
    pub time_ms: u64,
    /// Moves to complete in the period; 0 = the rest of the game. A last
    /// period with a move count repeats (e.g. 40 moves in 2 h, repeating).
    pub moves: u32,
    /// Time added after each move completed in time (Fischer increment).
    pub increment_ms: u64,
    /// Delay before each move's thinking time counts (see [`DelayMode`]).
    pub delay_ms: u64,
}

/// How a delay works.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DelayMode {
    /// Simple (US) delay: the clock does not run for the first `delay_ms`
    /// of each move.
    #[default]
    Simple,
    /// Bronstein delay: the clock runs, and after the move the time used,
    /// up to `delay_ms`, is given back.
    Bronstein,
}

/// The pace of a game, which some rules depend on (FIDE A.1, B.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Pace {
    /// Standard play: 60 minutes or more per player.
    Standard,
    /// Rapid: more than 10 and less than 60 minutes.
    Rapid,
    /// Blitz: 10 minutes or less.
    Blitz,
}

/// One player's time control: its periods in order and how delays work.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "StoredTimeControl")]
pub struct TimeControl {
    periods: Vec<Period>,
    delay_mode: DelayMode,
}

/// A control as stored, validated like a request's when read back, so that
/// no stored state can hold a control the rules cannot run (one without a
/// period, say).
#[derive(Deserialize)]
struct StoredTimeControl {
    periods: Vec<Period>,
    delay_mode: DelayMode,
}

impl TryFrom<StoredTimeControl> for TimeControl {
    type Error = FieldError;

    fn try_from(stored: StoredTimeControl) -> Result<Self, FieldError> {
        Self::new("time_control", stored.periods, stored.delay_mode)
    }
}

impl TimeControl {
    /// Validates a control; `field` names it in errors.
    pub fn new(
        field: &'static str,
        periods: Vec<Period>,
        delay_mode: DelayMode,
    ) -> Result<Self, FieldError> {
        if periods.is_empty() {
            return Err(FieldError::new(field, "needs at least one period"));
        }
        if periods.len() > 10 {
            return Err(FieldError::new(field, "has more than 10 periods"));
        }
        for (index, period) in periods.iter().enumerate() {
            let limit = |value: u64, what: &str| {
                if value > MAX_PERIOD_MS {
                    Err(FieldError::new(
                        field,
                        format!("period {} {what} is longer than 24 hours", index + 1),
                    ))
                } else {
                    Ok(())
                }
            };
            limit(period.time_ms, "time")?;
            limit(period.increment_ms, "increment")?;
            limit(period.delay_ms, "delay")?;
            if index + 1 < periods.len() && period.moves == 0 {
                return Err(FieldError::new(
                    field,
                    format!(
                        "period {} covers the rest of the game, so no period may follow it",
                        index + 1
                    ),
                ));
            }
        }
        if periods[0].time_ms == 0 {
            return Err(FieldError::new(
                field,
                "the first period needs time on the clock",
            ));
        }
        Ok(Self {
            periods,
            delay_mode,
        })
    }

    /// The periods, in order.
    pub fn periods(&self) -> &[Period] {
        &self.periods
    }

    /// How delays work.
    pub fn delay_mode(&self) -> DelayMode {
        self.delay_mode
    }

    /// The period in force after `index` periods have been completed (a
    /// last period with a move count repeats).
    pub fn period(&self, index: usize) -> &Period {
        let last = self.periods.len() - 1;
        &self.periods[index.min(last)]
    }

    /// Standard, rapid or blitz, by the first period's time plus 60 times
    /// its increment (FIDE A.1, B.1; delays do not count).
    pub fn pace(&self) -> Pace {
        let first = self.periods[0];
        let budget = first.time_ms + 60 * first.increment_ms;
        if budget <= 10 * 60 * 1000 {
            Pace::Blitz
        } else if budget < 60 * 60 * 1000 {
            Pace::Rapid
        } else {
            Pace::Standard
        }
    }

    /// The control in PGN `TimeControl` notation: periods joined by `:`,
    /// each `moves/seconds` or `seconds`, with `+increment`; a delay is
    /// written `d<seconds>` (simple) or `b<seconds>` (Bronstein), which PGN
    /// readers pass through as text.
    pub fn pgn(&self) -> String {
        let seconds = |ms: u64| {
            if ms.is_multiple_of(1000) {
                (ms / 1000).to_string()
            } else {
                format!("{:.3}", ms as f64 / 1000.0)
            }
        };
        self.periods
            .iter()
            .map(|p| {
                let mut text = if p.moves > 0 {
                    format!("{}/{}", p.moves, seconds(p.time_ms))
                } else {
                    seconds(p.time_ms)
                };
                if p.increment_ms > 0 {
                    text.push_str(&format!("+{}", seconds(p.increment_ms)));
                }
                if p.delay_ms > 0 {
                    let mark = match self.delay_mode {
                        DelayMode::Simple => 'd',
                        DelayMode::Bronstein => 'b',
                    };
                    text.push_str(&format!("{mark}{}", seconds(p.delay_ms)));
                }
                text
            })
            .collect::<Vec<_>>()
            .join(":")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn period(minutes: u64, moves: u32, increment_s: u64, delay_s: u64) -> Period {
        Period {
            time_ms: minutes * 60_000,
            moves,
            increment_ms: increment_s * 1000,
            delay_ms: delay_s * 1000,
        }
    }

    #[test]
    fn typical_controls_are_expressible_and_classified() {
        let classical = TimeControl::new(
            "c",
            vec![period(90, 40, 30, 0), period(30, 0, 30, 0)],
            DelayMode::Simple,
        )
        .unwrap();
        assert_eq!(classical.pace(), Pace::Standard);
        assert_eq!(classical.pgn(), "40/5400+30:1800+30");

        // 5 min + 60 × 3 s = 8 min.
        let blitz = TimeControl::new("c", vec![period(5, 0, 3, 0)], DelayMode::Simple).unwrap();
        assert_eq!(blitz.pace(), Pace::Blitz);
        assert_eq!(blitz.pgn(), "300+3");

        let rapid = TimeControl::new("c", vec![period(15, 0, 10, 0)], DelayMode::Simple).unwrap();
        assert_eq!(rapid.pace(), Pace::Rapid);

        let g60d5 = TimeControl::new("c", vec![period(60, 0, 0, 5)], DelayMode::Simple).unwrap();
        assert_eq!(g60d5.pace(), Pace::Standard);
        assert_eq!(g60d5.pgn(), "3600d5");

        let bronstein =
            TimeControl::new("c", vec![period(3, 0, 0, 3)], DelayMode::Bronstein).unwrap();
        assert_eq!(bronstein.pace(), Pace::Blitz);
        assert_eq!(bronstein.pgn(), "180b3");
    }

    #[test]
    fn malformed_controls_are_refused() {
        assert!(TimeControl::new("c", vec![], DelayMode::Simple).is_err());
        assert!(TimeControl::new("c", vec![period(0, 0, 2, 0)], DelayMode::Simple).is_err());
        assert!(
            TimeControl::new(
                "c",
                vec![period(10, 0, 0, 0), period(5, 0, 0, 0)],
                DelayMode::Simple
            )
            .is_err(),
            "nothing can follow a rest-of-game period"
        );
        assert!(TimeControl::new("c", vec![period(60 * 25, 0, 0, 0)], DelayMode::Simple).is_err());
    }

    #[test]
    fn a_last_period_with_a_move_count_repeats() {
        let control = TimeControl::new(
            "c",
            vec![period(120, 40, 0, 0), period(60, 20, 0, 0)],
            DelayMode::Simple,
        )
        .unwrap();
        assert_eq!(control.period(0).time_ms, 120 * 60_000);
        assert_eq!(control.period(1).time_ms, 60 * 60_000);
        assert_eq!(control.period(5).time_ms, 60 * 60_000);
    }
}
