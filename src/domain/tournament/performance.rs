//! Rating performance (FIDE Tie-Break Regulations C.07 Art. 10): the
//! tournament performance rating of a player from the ratings of the
//! opponents met and the points scored against them, with the FIDE Rating
//! Regulations' table of rating differences by percentage score (B.02,
//! Table 8.1(a)).

/// The rating difference `dp` for each percentage score `p` from 0 to 100
/// (FIDE Rating Regulations, Table 8.1(a)).
const DP_BY_PERCENT: [i16; 101] = [
    -800, -677, -589, -538, -501, -470, -444, -422, -401, -383, -366, -351, -336, -322, -309, -296,
    -284, -273, -262, -251, -240, -230, -220, -211, -202, -193, -184, -175, -166, -158, -149, -141,
    -133, -125, -117, -110, -102, -95, -87, -80, -72, -65, -57, -50, -43, -36, -29, -21, -14, -7,
    0, 7, 14, 21, 29, 36, 43, 50, 57, 65, 72, 80, 87, 95, 102, 110, 117, 125, 133, 141, 149, 158,
    166, 175, 184, 193, 202, 211, 220, 230, 240, 251, 262, 273, 284, 296, 309, 322, 336, 351, 366,
    383, 401, 422, 444, 470, 501, 538, 589, 677, 800,
];

/// `numerator / denominator` rounded to the nearest whole number, halves
/// up (both positive, or a zero numerator).
fn rounded(numerator: u64, denominator: u64) -> u64 {
    (2 * numerator + denominator) / (2 * denominator)
}

/// The average of `ratings`, rounded to the nearest whole number (halves
/// up); `None` when there are none.
pub fn average_rating(ratings: impl IntoIterator<Item = u32>) -> Option<u32> {
    let (sum, n) = ratings
        .into_iter()
        .fold((0u64, 0u64), |(sum, n), r| (sum + u64::from(r), n + 1));
    (n > 0).then(|| u32::try_from(rounded(sum, n)).unwrap_or(u32::MAX))
}

/// The tournament performance rating (TPR, Art. 10) of a player who met
/// opponents of `ratings` and scored `score_milli` thousandths of a point
/// against them (1 a win, ½ a draw): the opponents' average rating plus the
/// rating difference of the percentage score, rounded to a whole percent
/// (halves up). `None` without a rated opponent.
pub fn performance_rating(ratings: &[u32], score_milli: u64) -> Option<i64> {
    let average = average_rating(ratings.iter().copied())?;
    let games = ratings.len() as u64;
    // The percentage of the games' points, halves up.
    let percent = rounded(score_milli / 10, games).min(100);
    let dp = DP_BY_PERCENT[usize::try_from(percent).unwrap_or(100)];
    Some(i64::from(average) + i64::from(dp))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_symmetric_around_fifty_percent() {
        for p in 0..=100 {
            assert_eq!(DP_BY_PERCENT[p], -DP_BY_PERCENT[100 - p], "{p}");
        }
        assert!(DP_BY_PERCENT.windows(2).all(|w| w[0] < w[1]));
    }

    #[test]
    fn a_performance_is_the_average_plus_the_percentage_difference() {
        // 2 of 3 against 2000, 2100 and 2200: 67 % (66.67 rounded), +125.
        assert_eq!(performance_rating(&[2000, 2100, 2200], 2_000), Some(2225));
        // 50 %: the average itself, rounded halves up.
        assert_eq!(performance_rating(&[2000, 2001], 1_000), Some(2001));
        // Everything or nothing: ±800.
        assert_eq!(performance_rating(&[1800], 1_000), Some(2600));
        assert_eq!(performance_rating(&[1800], 0), Some(1000));
        // 1.5 of 4: 37.5 % rounds up to 38 %, -87.
        assert_eq!(performance_rating(&[2000; 4], 1_500), Some(1913));
        assert_eq!(performance_rating(&[], 0), None);
        assert_eq!(average_rating([]), None);
        assert_eq!(average_rating([1500, 1502, 1501]), Some(1501));
    }
}
