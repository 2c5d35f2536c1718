-- Appends an entry to a game's fair-play signals, unless its latest entry
-- starts with the same key or it holds as many as it may.
--
-- KEYS[1]: the game's signals, a list.
-- ARGV[1]: the entry.
-- ARGV[2]: the key a repeat of the latest entry starts with.
-- ARGV[3]: the most entries the list may hold, in decimal.
--
-- Returns the number of entries after the append, -1 for a repeat, -2 when
-- the list is full (nothing written for either).
local latest = redis.call('LINDEX', KEYS[1], -1)
if latest and string.sub(latest, 1, #ARGV[2]) == ARGV[2] then
  return -1
end
if redis.call('LLEN', KEYS[1]) >= tonumber(ARGV[3]) then
  return -2
end
return redis.call('RPUSH', KEYS[1], ARGV[1])
