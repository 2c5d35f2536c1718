-- Replaces a credential's record, if it is the one expected, and logs the
-- change: a compare-and-set, so that of two racing changes one is written.
--
-- KEYS[1]: the credentials' records, a hash of id to record.
-- KEYS[2]: the log the change goes to, a stream.
-- ARGV[1]: the id.
-- ARGV[2]: the new record.
-- ARGV[3]: the change's log entry.
-- ARGV[4]: the record expected.
--
-- Returns 1 when written, 0 when the id has no record or another (nothing
-- written).
if redis.call('HGET', KEYS[1], ARGV[1]) ~= ARGV[4] then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'c', ARGV[3])
return 1
