local stored = redis.call('HGET', KEYS[1], 'v')
local current = 0
if stored then current = tonumber(stored) end
if current ~= tonumber(ARGV[1]) then return {0, current} end
local last = redis.call('XREVRANGE', KEYS[2], '+', '-', 'COUNT', 1)
local logged
if #last > 0 then
  logged = tonumber(string.match(last[1][1], '^0%-(%d+)$')) or -1
else
  -- An empty log: the game's events are archived up to 'a', or it has none.
  logged = tonumber(redis.call('HGET', KEYS[1], 'a') or '0')
end
if logged ~= current then
  return {-1, logged}
end
for i = 9, #ARGV, 2 do
  redis.call('XADD', KEYS[2], '0-' .. ARGV[i], 'e', ARGV[i + 1])
end
if #KEYS > 3 then
  for i = 9, #ARGV, 2 do
    redis.call('XADD', KEYS[4], '*', 'g', ARGV[5], 'v', ARGV[i])
  end
  for version in string.gmatch(ARGV[8], '%d+') do
    redis.call('XADD', KEYS[5], '*', 'g', ARGV[5], 'v', version)
  end
end
redis.call('HSET', KEYS[1], 'v', ARGV[2], 's', ARGV[3])
if ARGV[4] == '' then
  redis.call('ZREM', KEYS[3], ARGV[5])
else
  redis.call('ZADD', KEYS[3], ARGV[4], ARGV[5])
end
local deadline = ARGV[4]
if deadline == '' then deadline = '-' end
local announcement = ARGV[5] .. ' ' .. ARGV[2] .. ' ' .. deadline
if ARGV[7] ~= '' then announcement = announcement .. ' ' .. ARGV[7] end
redis.call('PUBLISH', ARGV[6], announcement)
return {1, tonumber(ARGV[2])}
