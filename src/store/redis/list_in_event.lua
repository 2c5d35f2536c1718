-- Lists a game in its event's list, unless the list is full or, when the
-- caller asks, the event has a record of the game's round.
--
-- KEYS[1]: the event's list, a sorted set whose members all score 0 (so
--          that they sort by their bytes: round, board, then game id).
-- KEYS[2]: the event's round records (a hash: N:v is round N's version).
-- ARGV[1]: the member (the game at its round and board).
-- ARGV[2]: the most members the list may hold.
-- ARGV[3]: the round whose record refuses the listing, in decimal; 0 to
--          list whatever the rounds.
--
-- Returns 1 when the member is listed (it was already, or now is), 0 when
-- the list was full, 2 when the round has a record; nothing is written
-- unless 1.
if ARGV[3] ~= '0' and redis.call('HEXISTS', KEYS[2], ARGV[3] .. ':v') == 1 then
  return 2
end
if redis.call('ZSCORE', KEYS[1], ARGV[1]) then
  return 1
end
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[2]) then
  return 0
end
redis.call('ZADD', KEYS[1], 0, ARGV[1])
return 1
