-- http-digest.lua: wrk script that sends every request with an HTTP Digest Authorization header
-- (RFC 7616, algorithm MD5, qop=auth), a fresh nonce count per request, so the server does the
-- full verification (nonce signature, response hash, replay window) on each one.
--
-- Environment: DIGEST_NONCE, DIGEST_REALM (from a 401 challenge of the target, fetched by the
-- caller just before wrk starts), DIGEST_PASSWORD, DIGEST_PREPARED (requests to build ahead).
-- One wrk thread (-t1): the nonce counts of a second thread would collide with the first.
--
-- MD5 (RFC 1321) is written out here because wrk's LuaJIT has no digest functions.

local bit = require("bit")
local band, bor, bxor, bnot, lshift, rshift, rol, tobit =
  bit.band, bit.bor, bit.bxor, bit.bnot, bit.lshift, bit.rshift, bit.rol, bit.tobit

-- RFC 1321 §3.4: T[i] = floor(2^32 * abs(sin(i))), i = 1..64.
local T = {}
for i = 0, 63 do
  T[i] = tobit(math.floor(math.abs(math.sin(i + 1)) * 4294967296))
end

-- Per-round shift amounts (RFC 1321 §3.4, rounds 1-4).
local SHIFT = {
  7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22, 7, 12, 17, 22,
  5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20, 5, 9, 14, 20,
  4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23, 4, 11, 16, 23,
  6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21, 6, 10, 15, 21,
}

local function le_hex(x)
  return string.format("%02x%02x%02x%02x",
    band(x, 0xff), band(rshift(x, 8), 0xff), band(rshift(x, 16), 0xff), band(rshift(x, 24), 0xff))
end

local function md5(message)
  local length = #message
  local bits = length * 8
  -- §3.1-3.2: a 1 bit, zeros to 56 mod 64 bytes, then the 64-bit little-endian bit length.
  message = message .. "\128" .. string.rep("\0", (55 - length) % 64) ..
    string.char(band(bits, 0xff), band(rshift(bits, 8), 0xff), band(rshift(bits, 16), 0xff),
      band(rshift(bits, 24), 0xff), 0, 0, 0, 0)
  local a0, b0, c0, d0 = tobit(0x67452301), tobit(0xefcdab89), tobit(0x98badcfe), tobit(0x10325476)
  local X = {}
  for block = 1, #message, 64 do
    for i = 0, 15 do
      local b1, b2, b3, b4 = string.byte(message, block + i * 4, block + i * 4 + 3)
      X[i] = bor(b1, lshift(b2, 8), lshift(b3, 16), lshift(b4, 24))
    end
    local A, B, C, D = a0, b0, c0, d0
    for i = 0, 63 do
      local f, k
      if i < 16 then
        f, k = bor(band(B, C), band(bnot(B), D)), i
      elseif i < 32 then
        f, k = bor(band(B, D), band(C, bnot(D))), (5 * i + 1) % 16
      elseif i < 48 then
        f, k = bxor(B, C, D), (3 * i + 5) % 16
      else
        f, k = bxor(C, bor(B, bnot(D))), (7 * i) % 16
      end
      f = tobit(f + A + T[i] + X[k])
      A, D, C = D, C, B
      B = tobit(B + rol(f, SHIFT[i + 1]))
    end
    a0, b0, c0, d0 = tobit(a0 + A), tobit(b0 + B), tobit(c0 + C), tobit(d0 + D)
  end
  return le_hex(a0) .. le_hex(b0) .. le_hex(c0) .. le_hex(d0)
end

-- RFC 1321 §A.5 test suite: refuse to run with a wrong MD5.
assert(md5("") == "d41d8cd98f00b204e9800998ecf8427e", "md5 self-test")
assert(md5("abc") == "900150983cd24fb0d6963f7d28e17f72", "md5 self-test")
assert(md5(string.rep("1234567890", 8)) == "57edf4a22be3c955ac49da2e2107b67a", "md5 self-test")

local nonce = assert(os.getenv("DIGEST_NONCE"), "DIGEST_NONCE not set")
local realm = assert(os.getenv("DIGEST_REALM"), "DIGEST_REALM not set")
local password = assert(os.getenv("DIGEST_PASSWORD"), "DIGEST_PASSWORD not set")
-- Requests prepared before the measured window (wrk runs init before it starts its clock), so
-- the load generator's MD5 does not eat the CPU it shares with the server; past these, each
-- request is computed when it is sent.
local prepared = tonumber(os.getenv("DIGEST_PREPARED") or "0")
local count = 0
local path, ha1, ha2
local requests = {}

local function build(n)
  local nc = string.format("%08x", n)
  local cnonce = string.format("%016x", n)
  local response = md5(ha1 .. ":" .. nonce .. ":" .. nc .. ":" .. cnonce .. ":auth:" .. ha2)
  local authorization = string.format(
    'Digest username="", realm="%s", nonce="%s", uri="%s", algorithm=MD5, qop=auth, nc=%s, cnonce="%s", response="%s"',
    realm, nonce, path, nc, cnonce, response)
  return wrk.format("GET", path, { Authorization = authorization })
end

function init(args)
  path = wrk.path
  ha1 = md5(":" .. realm .. ":" .. password)
  ha2 = md5("GET:" .. path)
  for n = 1, prepared do
    requests[n] = build(n)
  end
end

function request()
  count = count + 1
  local prepared_request = requests[count]
  if prepared_request then
    requests[count] = nil
    return prepared_request
  end
  return build(count)
end
