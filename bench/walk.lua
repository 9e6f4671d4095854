-- chaindata bench: a wrk script that walks a list of request paths (one a
-- line) so that the requests are not all the same URL; each wrk thread
-- starts at another place in the list.  The requests are formatted once,
-- in init, so walking costs wrk no more than a fixed request.
--
-- usage: wrk ... -s walk.lua http://127.0.0.1:PORT -- PATHS_FILE
-- At the end it prints one line for bench/run to read:
--   RESULT requests=N duration_us=N bytes=N status_errors=N connect=N
--          read=N write=N timeout=N p50_us=N p90_us=N p99_us=N max_us=N

local threads = {}

function setup(thread)
   thread:set("index", #threads)
   table.insert(threads, thread)
end

local requests, n, i

function init(args)
   local file = args[1]
   local f = assert(io.open(file, "r"), "cannot open " .. tostring(file))
   requests = {}
   for line in f:lines() do
      if line:match("%S") then
         table.insert(requests, wrk.format("GET", line))
      end
   end
   f:close()
   n = #requests
   assert(n > 0, file .. " holds no paths")
   -- threads start spread over the list
   i = ((tonumber(index) or 0) * 7919) % n
end

function request()
   i = i + 1
   if i > n then i = 1 end
   return requests[i]
end

function done(summary, latency, requests)
   local e = summary.errors
   io.write(string.format(
      "RESULT requests=%d duration_us=%d bytes=%d status_errors=%d connect=%d "
      .. "read=%d write=%d timeout=%d p50_us=%d p90_us=%d p99_us=%d max_us=%d\n",
      summary.requests, summary.duration, summary.bytes, e.status, e.connect,
      e.read, e.write, e.timeout, latency:percentile(50), latency:percentile(90),
      latency:percentile(99), latency.max))
end
