-- wrk script for bench/floor_load.py --driver wrk: closed-loop spins from many machines.
-- args: <machines file> <run id> [think ms] [connections per wrk thread]. Each line of the file: "<asset> <api key> <json bet>".
-- With a think time, each connection is a machine that spins, waits for the result, then waits
-- <think ms> before the next spin (the first spin after a random part of one think time).
-- Every request carries a fresh Idempotency-Key (run id, wrk thread, counter), so none is a replay.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "wrk_common.lua")  -- setup, response, done

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
