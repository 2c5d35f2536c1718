-- Lists a game in its event's list, unless the list is full.
--
-- KEYS[1]: the event's list, a sorted set whose members all score 0 (so
--          that they sort by their bytes: round, board, then game id).
-- ARGV[1]: the member (the game at its round and board).
-- ARGV[2]: the most members the list may hold.
--
-- Returns 1 when the member is listed (it was already, or now is), 0 when
-- the list was full and nothing was written.
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], 0, ARGV[1])
return 1
