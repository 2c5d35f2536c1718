-- Replaces a credential's record, if it has one.
--
-- KEYS[1]: the credentials' records, a hash of id to record.
-- ARGV[1]: the id.
-- ARGV[2]: the new record.
--
-- Returns 1 when written, 0 when the id has no record (nothing written).
if redis.call('HEXISTS', KEYS[1], ARGV[1]) == 0 then
  return 0
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
return 1
