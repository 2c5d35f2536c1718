-- Writes an event's team registration, if it is at the version the writer
-- read.
--
-- KEYS[1]: the event's team registration, a hash of `r` (the record) and
--          `v` (its version, in decimal), written together.
-- KEYS[2]: the event's round summaries (see put_round.lua): a round of the
--          event has a field there.
-- ARGV[1]: the version expected, in decimal (0: none registered).
-- ARGV[2]: the new version (the caller checked it is one more).
-- ARGV[3]: the record.
-- ARGV[4]: '1' to write only while the event has no round, else '0'.
--
-- Returns 1 when written, 0 when the registration is at another version,
-- 2 when the event has a round and ARGV[4] is '1'; nothing is written
-- unless 1.
if (redis.call('HGET', KEYS[1], 'v') or '0') ~= ARGV[1] then
  return 0
end
if ARGV[4] == '1' and redis.call('EXISTS', KEYS[2]) == 1 then
  return 2
end
redis.call('HSET', KEYS[1], 'r', ARGV[3], 'v', ARGV[2])
return 1
