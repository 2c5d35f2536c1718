-- Adds a credential's record, unless one of that id exists or the store
-- holds as many as it may, and logs the change.
--
-- KEYS[1]: the credentials' records, a hash of id to record.
-- KEYS[2]: the credentials' ids, a sorted set of one score (lexical order).
-- KEYS[3]: the log the change goes to, a stream.
-- ARGV[1]: the id.
-- ARGV[2]: the record.
-- ARGV[3]: the most records the hash may hold, in decimal.
-- ARGV[4]: the change's log entry.
--
-- Returns {1, nil} when written, {2, record} when the id has a record
-- (nothing written), {3, nil} when the hash is full (nothing written).
local existing = redis.call('HGET', KEYS[1], ARGV[1])
if existing then
  return {2, existing}
end
if redis.call('HLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return {3, false}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2])
redis.call('ZADD', KEYS[2], 0, ARGV[1])
redis.call('XADD', KEYS[3], '*', 'c', ARGV[4])
return {1, false}
