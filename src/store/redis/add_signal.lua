-- Appends an entry to a game's fair-play signals, unless the latest entry
-- of its group repeats it or the group holds as many as it may.
--
-- KEYS[1]: the game's signals, a list.
-- ARGV[1]: the entry.
-- ARGV[2]: the key a repeat of the group's latest entry starts with.
-- ARGV[3]: the most entries the group may hold, in decimal.
-- ARGV[4]: the group: the start every entry of it shares.
--
-- Returns the number of entries after the append, -1 for a repeat, -2 when
-- the group is full (nothing written for either).
local entries = redis.call('LRANGE', KEYS[1], 0, -1)
local count = 0
local latest = nil
for i = #entries, 1, -1 do
  local entry = entries[i]
  if string.sub(entry, 1, #ARGV[4]) == ARGV[4] then
    count = count + 1
    if latest == nil then
      latest = entry
    end
  end
end
if latest and string.sub(latest, 1, #ARGV[2]) == ARGV[2] then
  return -1
end
if count >= tonumber(ARGV[3]) then
  return -2
end
return redis.call('RPUSH', KEYS[1], ARGV[1])
