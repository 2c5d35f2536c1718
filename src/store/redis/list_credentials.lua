-- A page of credentials' records, in the order of their ids.
--
-- KEYS[1]: the credentials' records, a hash of id to record.
-- KEYS[2]: the credentials' ids, a sorted set of one score (lexical order).
-- ARGV[1]: where the page starts: '-' for the first id, '(<id>' after one.
-- ARGV[2]: the most records to return, in decimal.
--
-- Returns id, record, id, record, … (a record the hash lacks as '').
local ids = redis.call('ZRANGEBYLEX', KEYS[2], ARGV[1], '+', 'LIMIT', 0, tonumber(ARGV[2]))
local out = {}
for _, id in ipairs(ids) do
  out[#out + 1] = id
  out[#out + 1] = redis.call('HGET', KEYS[1], id) or ''
end
return out
