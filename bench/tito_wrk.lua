-- wrk script for bench/tito_redeem.py --driver wrk: one wrk thread (one connection) per terminal.
-- args: <terminals file> <run id> <think ms>. Line i of the file is terminal i:
--   "<path> <bearer credential> <vn>,<vn>,..."   (cage, kiosk or machine ticket-in path)
-- Each terminal presents its next ticket, waits for the answer, then thinks <think ms> before the
-- next (0 = back to back); the first presentation waits a random part of one think time, so the
-- terminals do not start in step. bench/wrk_common.lua reports.
dofile((debug.getinfo(1, "S").source:match("^@(.*/)") or "") .. "wrk_common.lua")  -- setup, response, done

function init(args)
  local i = 0
  for line in io.lines(args[1]) do
    if i == tid then
      local path, cred, list = line:match("^(%S+) (%S+) (%S+)$")
      my_path, my_auth = path, "Bearer " .. cred
      tickets = {}
      for vn in list:gmatch("[^,]+") do tickets[#tickets + 1] = vn end
    end
    i = i + 1
  end
  run, think = args[2], tonumber(args[3])
  n, first = 0, true
  math.randomseed(tid * 7919 + 17)
end

function delay()
  if first then
    first = false
    return think > 0 and math.random(0, think) or 0
  end
  return think
end

function request()
  n = n + 1
  if n > #tickets then
    wrk.thread:stop()
    n = #tickets
  end
  return wrk.format("POST", my_path, {
    ["Authorization"] = my_auth,
    ["Idempotency-Key"] = run .. "-" .. tid .. "-" .. n,
    ["Content-Type"] = "application/json",
  }, '{"validation_number":"' .. tickets[n] .. '"}')
end
