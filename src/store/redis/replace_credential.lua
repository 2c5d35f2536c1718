-- Replaces a credential's record, if it has one, and logs the change.
--
-- KEYS[1]: the credentials' records, a hash of id to record.
-- KEYS[2]: the log the change goes to, a stream.
-- ARGV[1]: the id.
-- ARGV[2]: the new record.
-- ARGV[3]: the change's log entry.
--
-- Returns 1 when written, 0 when the id has no record (nothing written).
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('XADD', KEYS[2], '*', 'c', ARGV[3])
return 1
