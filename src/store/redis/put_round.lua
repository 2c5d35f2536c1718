-- Writes one round's record of an event, if the round is at the version
-- the writer read.
--
-- KEYS[1]: the event's round records, a hash holding for each round number
--          N the fields N (the record), N:v (its version, in decimal) and
--          N:s (its summary).
-- KEYS[2]: the event's round summaries, a hash of N to the summary again,
--          so that event-wide reads take the summaries without the records.
-- ARGV[1]: the round number N, in decimal.
-- ARGV[2]: the version expected, in decimal (0: the round has no record).
-- ARGV[3]: the new version (the caller checked it is one more).
-- ARGV[4]: the record.
-- ARGV[5]: the summary.
--
-- Returns 1 when the fields were written together, 0 when the round
-- is at another version and nothing was written. The versions are compared
-- as the decimal text both sides write, so no version is rounded.
local current = redis.call('HGET', KEYS[1], ARGV[1] .. ':v') or '0'
if current ~= ARGV[2] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[4], ARGV[1] .. ':v', ARGV[3], ARGV[1] .. ':s', ARGV[5])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[5])
return 1
