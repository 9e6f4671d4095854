-- wrk script for the fault tests: walks a list of paths (one a line) and
-- counts the answers by HTTP status.  At the end it prints
--   STATUS <code> <count>     for each status seen
--   ERRORS connect=N read=N write=N timeout=N
-- usage: wrk ... -s wrk-statuses.lua URL -- PATHS_FILE

local threads = {}

function setup(thread)
   thread:set("id", #threads)
   table.insert(threads, thread)
end

local requests, n, i
counts = {}

function init(args)
   local f = assert(io.open(args[1], "r"), "cannot open " .. tostring(args[1]))
   requests = {}
   for line in f:lines() do
      if line:match("%S") then
         table.insert(requests, wrk.format("GET", line))
      end
   end
   f:close()
   n = #requests
   i = ((tonumber(id) or 0) * 31) % n
end

function request()
   i = i + 1
   if i > n then i = 1 end
   return requests[i]
end

function response(status, headers, body)
   counts[status] = (counts[status] or 0) + 1
end

function done(summary, latency, requests)
   local total = {}
   for _, t in ipairs(threads) do
      local c = t:get("counts")
      for status, k in pairs(c) do
         total[status] = (total[status] or 0) + k
      end
   end
   for status, k in pairs(total) do
      io.write(string.format("STATUS %d %d\n", status, k))
   end
   local e = summary.errors
   io.write(string.format("ERRORS connect=%d read=%d write=%d timeout=%d\n",
                          e.connect, e.read, e.write, e.timeout))
end
