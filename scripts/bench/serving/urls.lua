-- wrk script: every request is a GET of a path drawn at random from a file of paths, one a line:
--   wrk ... -s urls.lua http://127.0.0.1:PORT -- FILE SEED [count] [sequential=THREADS]
-- With "sequential=THREADS" (wrk's -t), each thread instead walks its own share of the file in
-- order (a first touch: no path asked twice while the file lasts).
-- With "count", every response's status is counted per thread and `done` prints one line
-- "statuses 200=N 404=M ..." that serving_bench.py parses, so a run that answered errors is
-- reported as such, not as a fast run. Without it there is no `response` hook: wrk then neither
-- copies bodies into Lua nor calls it per response, which costs about a third of the request rate
-- at nginx's speed on 2 cores; wrk still counts 4xx/5xx itself ("Non-2xx or 3xx responses").
local threads = {}
local paths = {}
counts = {}  -- global: `done` reads each thread's copy through thread:get

function setup(thread)
   table.insert(threads, thread)
   thread:set("id", #threads)
end

function init(args)
   local file = assert(io.open(args[1], "r"), "cannot open " .. tostring(args[1]))
   for line in file:lines() do
      if #line > 0 then paths[#paths + 1] = line end
   end
   file:close()
   assert(#paths > 0, "no paths in " .. args[1])
   math.randomseed((tonumber(args[2]) or 1) * 7919 + id)
   for i = 3, #args do
      if args[i] == "count" then response = count end
      local threadCount = args[i]:match("^sequential=(%d+)$")
      if threadCount then
         sequential = true
         -- Threads start evenly apart (`id` counts from 1); each thread's state is its own.
         nextIndex = math.floor((id - 1) * #paths / tonumber(threadCount))
      end
   end
end

function request()
   if sequential then
      nextIndex = nextIndex % #paths + 1
      return wrk.format("GET", paths[nextIndex])
   end
   return wrk.format("GET", paths[math.random(#paths)])
end

function count(status, headers, body)
   counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, requests)
   local total = {}
   for _, thread in ipairs(threads) do
      for status, n in pairs(thread:get("counts") or {}) do
         total[status] = (total[status] or 0) + n
      end
   end
   local parts = {}
   for status, n in pairs(total) do parts[#parts + 1] = string.format("%d=%d", status, n) end
   table.sort(parts)
   io.write("statuses " .. table.concat(parts, " ") .. "\n")
end
