local stored = redis.call('HGET', KEYS[1], 'v')
if not stored or tonumber(stored) ~= tonumber(ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'a', ARGV[1], 'x', ARGV[2])
redis.call('DEL', KEYS[2])
redis.call('ZREM', KEYS[3], ARGV[3])
return 1
