-- wrk script for bench/floor_load.py --driver wrk: closed-loop spins from many machines.
-- args: <machines file> <run id> [think ms] [connections per wrk thread]. Each line of the file: "<asset> <api key> <json bet>".
-- With a think time, each connection is a machine that spins, waits for the result, then waits
-- <think ms> before the next spin (the first spin after a random part of one think time).
-- Every request carries a fresh Idempotency-Key (run id, wrk thread, counter), so none is a replay.
-- done() prints one "WRK {...}" JSON line: latency percentiles (µs), requests, non-2xx, socket errors.
local threads = {}
local next_id = 0

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

function init(args)
  machines = {}
  for line in io.lines(args[1]) do
    local asset, key, body = line:match("^(%S+) (%S+) (.+)$")
    machines[#machines + 1] = { "/api/v1/machines/" .. asset .. "/spin", "Bearer " .. key, body }
  end
  run = args[2]
  think = tonumber(args[3] or "0")
  per_thread = tonumber(args[4] or "1")
  delays = 0
  math.randomseed(tid * 104729 + 7)
  counter = 0
  statuses = {}
end

-- wrk calls delay() before every request when the script defines it; 0 = back to back
function delay()
  if think <= 0 then return 0 end
  delays = delays + 1
  if delays <= per_thread then return math.random(0, think) end  -- each connection's first spin
  return think
end

function request()
  counter = counter + 1
  local m = machines[((counter * 7919 + tid * 104729) % #machines) + 1]
  return wrk.format("POST", m[1], {
    ["Authorization"] = m[2],
    ["Idempotency-Key"] = run .. "-" .. tid .. "-" .. counter,
    ["Content-Type"] = "application/json",
  }, m[3])
end

function response(status, headers, body)
  if status ~= 200 then
    statuses[status] = (statuses[status] or 0) + 1
  end
end

function done(summary, latency, requests)
  local bad = {}
  for _, t in ipairs(threads) do
    local s = t:get("statuses")
    for k, v in pairs(s) do bad[#bad + 1] = string.format('"%d": %d', k, v) end
  end
  io.write(string.format(
    'WRK {"requests": %d, "duration_us": %d, "p50": %d, "p95": %d, "p99": %d, "max": %d, ' ..
    '"non2xx": %d, "connect": %d, "read": %d, "write": %d, "timeout": %d, "statuses": {%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, summary.errors.status, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout, table.concat(bad, ", ")))
end
