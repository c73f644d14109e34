-- Shared by bench/floor_wrk.lua and bench/tito_wrk.lua (loaded with dofile from the same folder):
-- numbers each wrk thread (global ``tid``), counts non-200 answers per status, and done() prints one
-- "WRK {...}" JSON line: requests, duration and latency percentiles (µs), non-2xx, socket errors and
-- the statuses seen; "served" gives the server-side time (queue + app, from each 200's Server-Timing
-- header, ms) of the answers that were served, apart from fast refusals such as a shed 503.
local threads = {}
local next_id = 0

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

statuses = {}
served = {}  -- Server-Timing total of each 200, in 0.1 ms steps: count

function response(status, headers, body)
  if status ~= 200 then
    statuses[status] = (statuses[status] or 0) + 1
    return
  end
  local timing = headers["Server-Timing"]
  if timing then
    local ms = 0
    for d in timing:gmatch("dur=([%d%.]+)") do ms = ms + tonumber(d) end
    local k = math.floor(ms * 10)
    served[k] = (served[k] or 0) + 1
  end
end

local function served_json()
  local all, n = {}, 0
  for _, t in ipairs(threads) do
    for k, v in pairs(t:get("served")) do all[k] = (all[k] or 0) + v; n = n + v end
  end
  if n == 0 then return '{"n": 0}' end
  local keys = {}
  for k in pairs(all) do keys[#keys + 1] = k end
  table.sort(keys)
  local function pct(p)
    local want, seen = math.ceil(n * p / 100), 0
    for _, k in ipairs(keys) do
      seen = seen + all[k]
      if seen >= want then return k / 10 end
    end
    return keys[#keys] / 10
  end
  return string.format('{"n": %d, "p50": %.1f, "p95": %.1f, "p99": %.1f, "max": %.1f}',
    n, pct(50), pct(95), pct(99), keys[#keys] / 10)
end

function done(summary, latency, requests)
  local total, bad = {}, {}
  for _, t in ipairs(threads) do  -- summed over the threads (one JSON key per status)
    for k, v in pairs(t:get("statuses")) do total[k] = (total[k] or 0) + v end
  end
  for k, v in pairs(total) do bad[#bad + 1] = string.format('"%d": %d', k, v) end
  io.write(string.format(
    'WRK {"requests": %d, "duration_us": %d, "p50": %d, "p95": %d, "p99": %d, "max": %d, "mean": %.1f, ' ..
    '"non2xx": %d, "connect": %d, "read": %d, "write": %d, "timeout": %d, "statuses": {%s}, "served": %s}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, latency.mean, summary.errors.status, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout, table.concat(bad, ", "), served_json()))
end
