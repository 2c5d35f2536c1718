-- Opens an event's round: writes its first record, lists its games and
-- marks it in creation, unless the round has a record, the event lists a
-- game in that round other than those the caller ignores, or its list
-- cannot take the round's games.
--
-- KEYS[1]: the event's round records, a hash (see put_round.lua).
-- KEYS[2]: the event's round summaries, a hash of N to the summary.
-- KEYS[3]: the event's list of games, a sorted set of members
--          <round, ten digits><board, ten digits><game id>, all scored 0.
-- KEYS[4]: the event's rounds in creation, a set of round numbers.
-- ARGV[1]: the round number N, in decimal.
-- ARGV[2]: N as the list's ten digits.
-- ARGV[3]: N + 1 as the list's ten digits.
-- ARGV[4]: the most games the event's list may hold.
-- ARGV[5]: the record (version 1).
-- ARGV[6]: the summary.
-- ARGV[7]: how many members to ignore, I.
-- ARGV[8 .. 7+I]: the members to ignore (listings of games that do not
--          exist or belong elsewhere).
-- ARGV[8+I ..]: the round's own members, to list.
--
-- Returns 1 when everything was written, 0 when the round has a record, 2
-- when the event lists another game in the round, 3 when the list is too
-- full; nothing is written unless 1.
if redis.call('HEXISTS', KEYS[1], ARGV[1] .. ':v') == 1 then
  return 0
end
local ignored = tonumber(ARGV[7])
local ignore = {}
for i = 8, 7 + ignored do
  ignore[ARGV[i]] = true
end
local listed = redis.call('ZRANGEBYLEX', KEYS[3], '[' .. ARGV[2], '(' .. ARGV[3], 'LIMIT', 0, ignored + 1)
for _, member in ipairs(listed) do
  if not ignore[member] then
    return 2
  end
end
local new = 0
for i = 8 + ignored, #ARGV do
  if not redis.call('ZSCORE', KEYS[3], ARGV[i]) then
    new = new + 1
  end
end
if redis.call('ZCARD', KEYS[3]) + new > tonumber(ARGV[4]) then
  return 3
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[5], ARGV[1] .. ':v', '1', ARGV[1] .. ':s', ARGV[6])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[6])
for i = 8 + ignored, #ARGV do
  redis.call('ZADD', KEYS[3], 0, ARGV[i])
end
redis.call('SADD', KEYS[4], ARGV[1])
return 1
