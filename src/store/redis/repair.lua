local stored = redis.call('HGET', KEYS[1], 'v')
local current = 0
if stored then current = tonumber(stored) end
if current ~= tonumber(ARGV[1]) then return 0 end
if ARGV[2] == '' then
  redis.call('ZREM', KEYS[2], ARGV[3])
else
  redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
end
return 1
