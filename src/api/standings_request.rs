//! Reading what a standings or TRF request adds to an event's games: the
//! tie-break order, byes and ratings, and a team standings request's
//! scores and tie-breaks, refused as `INVALID_FIELD` with the field named.

use std::collections::HashMap;

use tonic::Status;

use super::{
    request::{invalid, non_negative},
    status,
};
use crate::{
    domain::{
        Bye, ByeKind, Cut, MatchPointTable, Player, Points, TeamScore, TeamTieBreak, TieBreak,
        TieBreakOrder,
    },
    proto,
};

/// The tie-break order of a standings request (empty: the default one).
pub fn tie_breaks(raw: &[proto::TieBreak]) -> Result<TieBreakOrder, Status> {
    let mut order = Vec::with_capacity(raw.len());
    for (index, tie_break) in raw.iter().enumerate() {
        let position = index + 1;
        let cut = Cut {
            lowest: non_negative("tie_breaks", tie_break.cut_lowest)?,
            highest: non_negative("tie_breaks", tie_break.cut_highest)?,
        };
        let kind = proto::TieBreakKind::try_from(tie_break.kind)
            .unwrap_or(proto::TieBreakKind::Unspecified);
        let parsed = match kind {
            proto::TieBreakKind::Unspecified => {
                return Err(invalid(
                    "tie_breaks",
                    &format!(
                        "tie-break {position} has no known kind ({})",
                        tie_break.kind
                    ),
                ));
            }
            proto::TieBreakKind::Buchholz => TieBreak::Buchholz(cut),
            proto::TieBreakKind::ProgressiveScore => TieBreak::ProgressiveScore(cut),
            proto::TieBreakKind::AverageRatingOfOpponents => {
                TieBreak::AverageRatingOfOpponents(cut)
            }
            proto::TieBreakKind::TournamentPerformanceRating => {
                TieBreak::TournamentPerformanceRating(cut)
            }
            proto::TieBreakKind::AverageOfOpponentsPerformance => {
                TieBreak::AverageOfOpponentsPerformance(cut)
            }
            proto::TieBreakKind::DirectEncounter => TieBreak::DirectEncounter,
            proto::TieBreakKind::SonnebornBerger => TieBreak::SonnebornBerger(cut),
            proto::TieBreakKind::Koya => TieBreak::Koya,
            proto::TieBreakKind::ForeBuchholz => TieBreak::ForeBuchholz(cut),
            proto::TieBreakKind::AverageOfOpponentsBuchholz => {
                TieBreak::AverageOfOpponentsBuchholz(cut)
            }
            proto::TieBreakKind::Wins => TieBreak::Wins,
            proto::TieBreakKind::GamesWon => TieBreak::GamesWon,
            proto::TieBreakKind::GamesWithBlack => TieBreak::GamesWithBlack,
        };
        if parsed.cut().is_none() && cut != Cut::NONE {
            return Err(invalid(
                "tie_breaks",
                &format!("tie-break {position} ({}) takes no cut", kind.as_str_name()),
            ));
        }
        order.push(parsed);
    }
    TieBreakOrder::new(order).map_err(|err| status::invalid_field(&err))
}

/// The most byes or ratings one request may state.
const MAX_ENTRIES: usize = 10_000;

/// The byes a standings or TRF request declares.
pub fn byes(raw: &[proto::Bye]) -> Result<Vec<Bye>, Status> {
    if raw.len() > MAX_ENTRIES {
        return Err(invalid("byes", "holds more than 10000 byes"));
    }
    raw.iter()
        .map(|bye| {
            let player = Player::parse("byes", &bye.player_id, "")
                .map_err(|err| status::invalid_field(&err))?;
            let kind =
                match proto::ByeKind::try_from(bye.kind).unwrap_or(proto::ByeKind::Unspecified) {
                    proto::ByeKind::Unspecified => {
                        return Err(invalid(
                            "byes",
                            &format!("the bye of '{}' has no known kind", bye.player_id),
                        ));
                    }
                    proto::ByeKind::PairingAllocated => ByeKind::PairingAllocated,
                    proto::ByeKind::FullPoint => ByeKind::FullPoint,
                    proto::ByeKind::HalfPoint => ByeKind::HalfPoint,
                    proto::ByeKind::ZeroPoint => ByeKind::ZeroPoint,
                    proto::ByeKind::ForfeitWin => ByeKind::ForfeitWin,
                };
            Ok(Bye {
                player,
                round: non_negative("byes", bye.round)?,
                kind,
            })
        })
        .collect()
}

/// The ratings a standings request gives, by player id.
pub fn ratings(raw: &[proto::PlayerRating]) -> Result<HashMap<String, u32>, Status> {
    if raw.len() > MAX_ENTRIES {
        return Err(invalid("ratings", "holds more than 10000 ratings"));
    }
    let mut ratings = HashMap::with_capacity(raw.len());
    for rating in raw {
        let player = Player::parse("ratings", &rating.player_id, "")
            .map_err(|err| status::invalid_field(&err))?;
        let value = non_negative("ratings", rating.rating)?;
        if value > 4000 {
            return Err(invalid("ratings", "a rating is above 4000"));
        }
        if ratings.insert(player.id, value).is_some() {
            return Err(invalid(
                "ratings",
                &format!("'{}' is rated twice", rating.player_id),
            ));
        }
    }
    Ok(ratings)
}

/// What a team standings request ranks by: the primary score, the
/// tie-breaks (the default ones for none) and the match points.
pub fn team_order(
    req: &proto::GetTeamStandingsRequest,
) -> Result<(TeamScore, Vec<TeamTieBreak>, MatchPointTable), Status> {
    let primary = match proto::TeamScoreKind::try_from(req.primary_score) {
        Ok(proto::TeamScoreKind::Unspecified | proto::TeamScoreKind::MatchPoints) => {
            TeamScore::Match
        }
        Ok(proto::TeamScoreKind::GamePoints) => TeamScore::Game,
        Err(_) => {
            return Err(invalid(
                "primary_score",
                &format!("{} is not a TeamScoreKind", req.primary_score),
            ));
        }
    };
    let order = TeamTieBreak::order("tie_breaks", &req.tie_breaks, primary)
        .map_err(|err| status::invalid_field(&err))?;
    let table = match &req.match_points {
        None => MatchPointTable::OLYMPIAD,
        Some(points) => {
            let read = |field: &'static str, text: &str| {
                Points::parse(field, text)
                    .map(|value| (field, value))
                    .map_err(|err| status::invalid_field(&err))
            };
            let optional = |field: &'static str, text: &str| {
                if text.trim().is_empty() {
                    Ok(None)
                } else {
                    read(field, text).map(Some)
                }
            };
            let tie_break_win = optional("match_points.tie_break_win", &points.tie_break_win)?;
            let tie_break_loss = optional("match_points.tie_break_loss", &points.tie_break_loss)?;
            MatchPointTable::new(
                "match_points",
                [
                    read("match_points.win", &points.win)?,
                    read("match_points.draw", &points.draw)?,
                    read("match_points.loss", &points.loss)?,
                ],
            )
            .and_then(|table| table.with_tie_break("match_points", tie_break_win, tie_break_loss))
            .map_err(|err| status::invalid_field(&err))?
        }
    };
    Ok((primary, order, table))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::convert;

    #[test]
    fn every_tie_break_reads_back_from_its_protobuf_form() {
        let all = [
            TieBreak::DirectEncounter,
            TieBreak::Buchholz(Cut::median(1)),
            TieBreak::SonnebornBerger(Cut::NONE),
            TieBreak::Koya,
            TieBreak::AverageOfOpponentsBuchholz(Cut::lowest(1)),
            TieBreak::ForeBuchholz(Cut::median(1)),
            TieBreak::Wins,
            TieBreak::GamesWon,
            TieBreak::GamesWithBlack,
            TieBreak::ProgressiveScore(Cut::lowest(2)),
            TieBreak::AverageRatingOfOpponents(Cut::NONE),
            TieBreak::TournamentPerformanceRating(Cut::lowest(1)),
            TieBreak::AverageOfOpponentsPerformance(Cut::median(1)),
        ];
        let sent: Vec<proto::TieBreak> = all.iter().map(|&t| convert::tie_break(t)).collect();
        let order = tie_breaks(&sent).expect("valid");
        assert_eq!(order.as_slice(), all);
    }

    #[test]
    fn every_kind_of_the_proto_is_offered_once() {
        let offered: Vec<i32> = TieBreak::OFFERED
            .into_iter()
            .map(|t| convert::offered_tie_break(t).kind)
            .collect();
        let kinds: Vec<i32> = (1..100)
            .filter(|n| proto::TieBreakKind::try_from(*n).is_ok())
            .collect();
        let mut sorted = offered.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, kinds, "offered: {offered:?}");
        let codes: Vec<String> = TieBreak::OFFERED.iter().map(ToString::to_string).collect();
        assert_eq!(
            codes,
            [
                "DE", "BH", "FB", "AOB", "SB", "KS", "WIN", "WON", "BPG", "PS", "ARO", "TPR",
                "APRO"
            ]
        );
    }

    #[test]
    fn a_cut_on_a_kind_without_cuts_is_refused() {
        let sent = [proto::TieBreak {
            kind: proto::TieBreakKind::Wins.into(),
            cut_lowest: 1,
            cut_highest: 0,
        }];
        let status = tie_breaks(&sent).unwrap_err();
        assert_eq!(status.code(), tonic::Code::InvalidArgument);
        assert!(status.message().contains("takes no cut"), "{status:?}");
    }
}
