-- Loaded by the benchmarks' wrk scripts (dofile) before they define `request`: counts the answers that are not 200
-- in each thread and prints, at the end, one line for the whole run:
--   requests=N failed=F (not 200: A; socket errors: connect C, read R, write W, timeout T)
failures = 0  -- a global: done() reads it from each thread
local threads = {}
setup = function(thread) table.insert(threads, thread) end
init = function() failures = 0 end
response = function(status, headers, body)
    if status ~= 200 then failures = failures + 1 end
end
done = function(summary, latency, requests)
    local not200 = 0
    for _, thread in ipairs(threads) do not200 = not200 + thread:get("failures") end
    local e = summary.errors
    io.write(string.format(
        "requests=%d failed=%d (not 200: %d; socket errors: connect %d, read %d, write %d, timeout %d)\n",
        summary.requests, not200 + e.connect + e.read + e.write + e.timeout, not200, e.connect, e.read, e.write,
        e.timeout))
end
