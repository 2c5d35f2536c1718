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
-- KEYS[5]: the event's team registration, a hash (see put_teams.lua).
-- ARGV[1]: the round number N, in decimal.
-- ARGV[2]: N as the list's ten digits.
-- ARGV[3]: N + 1 as the list's ten digits.
-- ARGV[4]: the most games the event's list may hold.
-- ARGV[5]: the record (version 1).
-- ARGV[6]: the summary.
-- ARGV[7]: the team registration's version the round was planned from,
--          in decimal, or '-' when the round has no matches.
-- ARGV[8]: how many members to ignore, I.
-- ARGV[9 .. 8+I]: the members to ignore (listings of games that do not
--          exist or belong elsewhere).
-- ARGV[9+I ..]: the round's own members, to list.
--
-- Returns 1 when everything was written, 0 when the round has a record, 2
-- when the event lists another game in the round, 3 when the list is too
-- full, 4 when the team registration is at another version; nothing is
-- written unless 1.
if redis.call('HEXISTS', KEYS[1], ARGV[1] .. ':v') == 1 then
  return 0
end
if ARGV[7] ~= '-' and (redis.call('HGET', KEYS[5], 'v') or '0') ~= ARGV[7] then
  return 4
end
local ignored = tonumber(ARGV[8])
local ignore = {}
for i = 9, 8 + ignored do
  ignore[ARGV[i]] = true
end
local listed = redis.call('ZRANGEBYLEX', KEYS[3], '[' .. ARGV[2], '(' .. ARGV[3], 'LIMIT', 0, ignored + 1)
for _, member in ipairs(listed) do
  if not ignore[member] then
    return 2
  end
end
local new = 0
for i = 9 + ignored, #ARGV do
  if not redis.call('ZSCORE', KEYS[3], ARGV[i]) then
    new = new + 1
  end
end
if redis.call('ZCARD', KEYS[3]) + new > tonumber(ARGV[4]) then
  return 3
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[5], ARGV[1] .. ':v', '1', ARGV[1] .. ':s', ARGV[6])
redis.call('HSET', KEYS[2], ARGV[1], ARGV[6])
for i = 9 + ignored, #ARGV do
  redis.call('ZADD', KEYS[3], 0, ARGV[i])
end
redis.call('SADD', KEYS[4], ARGV[1])
return 1
