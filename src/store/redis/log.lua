local through = redis.call('HGET', KEYS[1], 'a')
local start = ARGV[1]
local archive = false
if through and tonumber(ARGV[1]) < tonumber(through) then
  archive = redis.call('HGET', KEYS[1], 'x')
  start = through
end
local entries
if ARGV[2] == '0' then
  entries = redis.call('XRANGE', KEYS[2], '(0-' .. start, '+')
else
  entries = redis.call('XRANGE', KEYS[2], '(0-' .. start, '+', 'COUNT', ARGV[2])
end
return {tonumber(through or '0'), archive, entries}
