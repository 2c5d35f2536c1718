local stored = redis.call('HMGET', KEYS[1], 'v', 'a')
local current = tonumber(stored[1] or '0')
if current ~= tonumber(ARGV[1]) then return {0, current} end
-- Each version is one entry of the log, and archiving deletes the log and
-- keeps in 'a' the version it reached: so the log reaches 'a' plus its
-- length (O(1), where reading its last entry costs a reply of its own).
local logged = tonumber(stored[2] or '0') + redis.call('XLEN', KEYS[2])
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
