-- Shared by bench/floor_wrk.lua and bench/tito_wrk.lua (loaded with dofile from the same folder):
-- numbers each wrk thread (global ``tid``), counts non-200 answers per status, and done() prints one
-- "WRK {...}" JSON line: requests, duration and latency percentiles (µs), non-2xx, socket errors and
-- the statuses seen.
local threads = {}
local next_id = 0

function setup(thread)
  thread:set("tid", next_id)
  next_id = next_id + 1
  table.insert(threads, thread)
end

statuses = {}

function response(status, headers, body)
  if status ~= 200 then statuses[status] = (statuses[status] or 0) + 1 end
end

function done(summary, latency, requests)
  local total, bad = {}, {}
  for _, t in ipairs(threads) do  -- summed over the threads (one JSON key per status)
    for k, v in pairs(t:get("statuses")) do total[k] = (total[k] or 0) + v end
  end
  for k, v in pairs(total) do bad[#bad + 1] = string.format('"%d": %d', k, v) end
  io.write(string.format(
    'WRK {"requests": %d, "duration_us": %d, "p50": %d, "p95": %d, "p99": %d, "max": %d, "mean": %.1f, ' ..
    '"non2xx": %d, "connect": %d, "read": %d, "write": %d, "timeout": %d, "statuses": {%s}}\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(95),
    latency:percentile(99), latency.max, latency.mean, summary.errors.status, summary.errors.connect,
    summary.errors.read, summary.errors.write, summary.errors.timeout, table.concat(bad, ", ")))
end
