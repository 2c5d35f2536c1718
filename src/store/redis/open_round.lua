-- Writes the first record of an event's round, unless the round has one,
-- the event lists games in that round, or its list cannot take the
-- round's games.
--
-- KEYS[1]: the event's round records, a hash (see put_round.lua).
-- KEYS[2]: the event's round summaries, a hash of N to the summary.
-- KEYS[3]: the event's list of games, a sorted set of members
--          <round, ten digits><board, ten digits><game id>, all scored 0.
-- ARGV[1]: the round number N, in decimal.
-- ARGV[2]: N as the list's ten digits.
-- ARGV[3]: N + 1 as the list's ten digits.
-- ARGV[4]: the games the round will list.
-- ARGV[5]: the most games the event's list may hold.
-- ARGV[6]: the record (version 1).
-- ARGV[7]: the summary.
--
-- Returns 1 when the record was written, 0 when the round has one, 2 when
-- the event lists games in the round, 3 when the list is too full; nothing
-- is written unless 1.
if redis.call('HEXISTS', KEYS[1], ARGV[1] .. ':v') == 1 then
  return 0
end
local listed = redis.call('ZRANGEBYLEX', KEYS[3], '[' .. ARGV[2], '(' .. ARGV[3], 'LIMIT', 0, 1)
if #listed > 0 then
  return 2
end
if redis.call('ZCARD', KEYS[3]) + tonumber(ARGV[4]) > tonumber(ARGV[5]) then
  return 3
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[6], ARGV[1] .. ':v', '1', ARGV[1] .. ':s', ARGV[7])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[7])
return 1
