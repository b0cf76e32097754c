#include "TilecutPDFScan.h"

/* qpdf 11: no PointerHolder in what this file uses */
#define POINTERHOLDER_TRANSITION 4

#include <qpdf/Pipeline.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFObjectHandle.hh>
#include <qpdf/QPDFPageObjectHelper.hh>

#include <zlib.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <vector>

/* TilecutJPEGScan.h (CVipsShim), declared here: that module brings libvips, which
 * clang would import as C++ */
extern "C" int tc_verify_jpeg_buffer(const void *data, size_t length, char *reason, size_t reason_size);

namespace {

/* Forms inside forms deeper than this are not followed (poppler stops at 100;
 * the depths below them still count). */
constexpr int maxFormLevel = 64;
/* Names drawn with Do that one stream may name. */
constexpr size_t maxInvoked = 4096;

/* What drawing a form costs poppler besides its content's bytes, in bytes of
 * content (measured with poppler 22: about 35 µs a form drawn, 0.5 µs a byte). */
constexpr uint64_t formOverhead = 64;
/* What poppler holds for one vertex of a triangle mesh (GfxGouraudVertex, 144
 * bytes, in an array grown by doubling, with its triangles) and for one patch of
 * a patch mesh (GfxPatch, 1280 bytes, grown the same way): measured peaks. */
constexpr uint64_t vertexCost = 384, patchCost = 2400;
/* What painting them costs poppler, in bytes of content's time (measured: 14 µs
 * a triangle vertex, 47 ns an image's pixel; a patch taken as four vertices, a
 * gradient as a few hundred bytes). */
constexpr uint64_t vertexWalk = 32, patchWalk = 128, gradientWalk = 1024, pixelsPerByte = 8;
/* The most of a JBIG2 stream read for its segment headers. */
constexpr uint64_t maxJBIG2Header = 64 << 20;

/* Thrown through qpdf's decoding when a bound is passed. */
struct Stop {};

/* Sums and products that stop at a bound no file reaches, rather than wrap. */
constexpr uint64_t saturated = UINT64_MAX / 4;
uint64_t add(uint64_t a, uint64_t b) { return a >= saturated - std::min(b, saturated) ? saturated : a + b; }
uint64_t times(uint64_t a, uint64_t b) { return b && a >= saturated / b ? saturated : a * b; }

std::string megabytes(uint64_t bytes) {
  char text[32];
  snprintf(text, sizeof text, "%llu MB", (unsigned long long)((bytes + 999999) / 1000000));
  return text;
}

uint32_t bigEndian(const std::string &d, size_t at) {
  const unsigned char *p = (const unsigned char *)d.data() + at;
  return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* The bitmaps a JBIG2 stream's segments make poppler allocate, in bytes: its
 * page's, and its largest region's (a region segment's first 8 bytes are its
 * width and height), with the larger one's size. */
uint64_t jbig2Bytes(const std::string &d, uint32_t *width, uint32_t *height) {
  size_t i = 0, n = d.size();
  uint64_t page = 0, region = 0;
  while (i + 11 <= n) {
    uint32_t number = bigEndian(d, i);
    unsigned flags = (unsigned char)d[i + 4];
    i += 5;
    uint64_t referred = (unsigned char)d[i] >> 5;
    if (referred == 7) {
      if (i + 4 > n)
        break;
      referred = bigEndian(d, i) & 0x1fffffff;
      i += 4 + (referred + 8) / 8;
    } else {
      i += 1;
    }
    i += referred * (number <= 256 ? 1 : number <= 65536 ? 2 : 4) + (flags & 0x40 ? 4 : 1);
    if (i + 4 > n)
      break;
    uint32_t length = bigEndian(d, i);
    i += 4;
    unsigned type = flags & 63;
    bool isRegion = type == 4 || type == 6 || type == 7 || type == 20 || type == 22 || type == 23 || type == 36 ||
                    type == 38 || type == 39 || type == 40 || type == 42 || type == 43;
    if ((type == 48 || isRegion) && i + 8 <= n) {
      uint32_t w = bigEndian(d, i), h = bigEndian(d, i + 4);
      /* a page of unknown height (striped) grows stripe by stripe: its regions say how */
      uint64_t bytes = h == 0xffffffff ? 0 : times(((uint64_t)w + 7) / 8, h);
      uint64_t &slot = type == 48 ? page : region;
      if (bytes > slot) {
        slot = bytes;
        if (bytes >= std::max(page, region)) {
          *width = w;
          *height = h;
        }
      }
    }
    if (length == 0xffffffff)
      break;
    i += length;
  }
  return add(page, region);
}

/* PDF's white space (1) and delimiters (2), by byte. */
struct Classes {
  unsigned char of[256] = {};
  Classes() {
    for (unsigned char c : {0, 9, 10, 12, 13, 32})
      of[c] = 1;
    for (unsigned char c : {'(', ')', '<', '>', '[', ']', '{', '}', '/', '%'})
      of[c] = 2;
  }
};
const Classes classes;

/* An inline image's Flate data, as far as they can be judged: whole (to their end
 * and checksum), damaged (`why`), or unknown (they end early: the cut may be wrong).
 * Defined with Inflate below. */
enum class InlineVerdict { whole, damaged, unknown };
InlineVerdict inlineFlateVerdict(const std::string &data, std::string &why);

/* The tokens of a content stream, fed in pieces: q and Q nesting, the names
 * drawn with Do, inline images' declared sizes, and whether an inline image
 * whose one filter is Flate has damaged data. */
struct Content {
  long depth = 0, maxDepth = 0;
  int inString = 0;
  bool escape = false, inComment = false;
  /* the token being read (its first 63 bytes) and the last name */
  char token[64];
  size_t length = 0;
  char lastName[64];
  size_t nameLength = 0;
  std::map<std::string, uint64_t> invoked;
  /* the shadings painted with sh, and the patterns filled or stroked with, by name */
  std::map<std::string, uint64_t> shaded, patterned;
  /* the pattern that fills and the one that strokes (empty: a colour), and
   * theirs at each q (the first maxSaved) */
  std::string fillPattern, strokePattern;
  std::vector<std::pair<std::string, std::string>> saved;
  static constexpr size_t maxSaved = 256;
  bool nameJustRead = false;
  /* the bytes fed */
  uint64_t bytes = 0;
  /* inline images: 0 content, 1 the dictionary after BI, 2 the data after ID */
  int mode = 0;
  std::string key;
  uint64_t inlineWidth = 0, inlineHeight = 0;
  uint64_t largestInline = 0;
  /* the largest /Columns an inline image's /DecodeParms names */
  uint64_t inlineColumns = 0;
  uint32_t largestWidth = 0, largestHeight = 0;
  unsigned char window[3] = {' ', ' ', ' '};
  /* the filters an inline image names (/F or /Filter, a name or an array of them),
   * its data when Flate is the only one (the first maxInlineData bytes), and the
   * first damage found */
  std::vector<std::string> inlineFilters;
  bool inFilter = false;
  int inlineArray = 0;
  std::string inlineData;
  bool keepInline = false;
  std::string inlineDamage;
  /* an inline image's end was not confirmed by its own data (another filter, Flate
   * data that end early): where the scan cut it may be wrong, and what follows may
   * be pixels read as content, so no later inline image is judged */
  bool inlineUnsure = false;
  static constexpr size_t maxInlineData = 4 << 20;

  static bool space(unsigned char c) { return classes.of[c] == 1; }
  static bool delimiter(unsigned char c) { return classes.of[c] != 0; }
  /* the token is `word` (a literal: its length known where it is compared) */
  template <size_t N> bool is(const char (&word)[N]) const {
    return length == N - 1 && memcmp(token, word, N - 1) == 0;
  }

  /* one more use of `name` in `uses` (a bounded number of names) */
  static void count(std::map<std::string, uint64_t> &uses, const std::string &name) {
    auto known = uses.find(name);
    if (known != uses.end())
      known->second++;
    else if (uses.size() < maxInvoked)
      uses[name] = 1;
  }

  void paint(bool fill, bool stroke) {
    if (fill && !fillPattern.empty())
      count(patterned, fillPattern);
    if (stroke && !strokePattern.empty())
      count(patterned, strokePattern);
  }

  void endToken() {
    if (!length)
      return;
    bool afterName = nameJustRead;
    nameJustRead = false;
    if (mode == 1) {
      inlineToken();
    } else if (token[0] == '/') {
      memcpy(lastName, token, length);
      nameLength = length;
      nameJustRead = true;
    } else if (length == 1 && token[0] == 'q') {
      maxDepth = std::max(maxDepth, ++depth);
      if (saved.size() < maxSaved)
        saved.push_back({fillPattern, strokePattern});
    } else if (length == 1 && token[0] == 'Q') {
      if (depth > 0)
        depth--;
      if (!saved.empty() && (size_t)depth < saved.size()) {
        fillPattern = saved.back().first;
        strokePattern = saved.back().second;
        saved.pop_back();
      }
    } else if (length > 3 || (token[0] >= '0' && token[0] <= '9') || token[0] == '-' || token[0] == '.' ||
               token[0] == '+') {
      /* a number, or an operator this walk does not follow */
    } else if (is("Do")) {
      if (nameLength)
        count(invoked, std::string(lastName, nameLength));
    } else if (is("sh")) {
      if (nameLength)
        count(shaded, std::string(lastName, nameLength));
    } else if (is("scn") || is("SCN")) {
      std::string &pattern = token[0] == 's' ? fillPattern : strokePattern;
      pattern = afterName ? std::string(lastName, nameLength) : std::string();
    } else if (is("cs") || is("sc") || is("g") || is("rg") || is("k")) {
      fillPattern.clear();
    } else if (is("CS") || is("SC") || is("G") || is("RG") || is("K")) {
      strokePattern.clear();
    } else if (is("f") || is("F") || is("f*") || is("Tj") || is("TJ") || is("'") || is("\"")) {
      paint(true, false);
    } else if (is("S") || is("s")) {
      paint(false, true);
    } else if (is("B") || is("B*") || is("b") || is("b*")) {
      paint(true, true);
    } else if (is("BI")) {
      mode = 1;
      key.clear();
      inlineWidth = inlineHeight = 0;
      inlineFilters.clear();
      inFilter = false;
      inlineArray = 0;
    }
    length = 0;
  }

  void inlineToken() {
    if (is("ID")) {
      uint64_t bytes = inlineWidth * inlineHeight * 4;
      if (bytes > largestInline) {
        largestInline = bytes;
        largestWidth = (uint32_t)std::min<uint64_t>(inlineWidth, UINT32_MAX);
        largestHeight = (uint32_t)std::min<uint64_t>(inlineHeight, UINT32_MAX);
      }
      mode = 2;
      window[0] = window[1] = window[2] = ' ';
      keepInline = inlineDamage.empty() && !inlineUnsure && inlineFilters.size() == 1 &&
                   (inlineFilters[0] == "/Fl" || inlineFilters[0] == "/FlateDecode");
      if (!keepInline)
        inlineUnsure = true;
      inlineData.clear();
    } else if (token[0] == '/' && inFilter) {
      inlineFilters.push_back(std::string(token, length));
      inFilter = inlineArray > 0;
    } else if (token[0] == '/') {
      key.assign(token, length);
      inFilter = key == "/F" || key == "/Filter";
    } else {
      std::string number(token, length);
      char *end = nullptr;
      double v = strtod(number.c_str(), &end);
      uint64_t n = end && *end == 0 && v > 0 ? (uint64_t)std::min(v, 4e9) : 0;
      if (key == "/Columns")
        inlineColumns = std::max(inlineColumns, n);
      if (key == "/W" || key == "/Width")
        inlineWidth = n;
      else if (key == "/H" || key == "/Height")
        inlineHeight = n;
      key.clear();
    }
  }

  void feed(const unsigned char *p, size_t n) {
    bytes += n;
    for (size_t i = 0; i < n; i++) {
      unsigned char c = p[i];
      if (mode == 2) {
        /* an inline image's data runs to the first EI between white space */
        if (space(window[0]) && window[1] == 'E' && window[2] == 'I' && delimiter(c)) {
          mode = 0;
          length = 0;
          if (keepInline && inlineData.size() >= 3 && inlineData.size() < maxInlineData) {
            inlineData.resize(inlineData.size() - 3);
            std::string why;
            InlineVerdict verdict = inlineFlateVerdict(inlineData, why);
            if (verdict == InlineVerdict::damaged)
              inlineDamage = why;
            else if (verdict == InlineVerdict::unknown)
              inlineUnsure = true;
          } else if (keepInline) {
            inlineUnsure = true;
          }
          inlineData.clear();
          keepInline = false;
        } else if (keepInline && inlineData.size() < maxInlineData) {
          inlineData.push_back((char)c);
        }
        window[0] = window[1];
        window[1] = window[2];
        window[2] = c;
        if (mode == 2)
          continue;
      }
      if (inComment) {
        if (c == 10 || c == 13)
          inComment = false;
      } else if (inString) {
        if (escape)
          escape = false;
        else if (c == '\\')
          escape = true;
        else if (c == '(')
          inString++;
        else if (c == ')')
          inString--;
      } else if (delimiter(c)) {
        endToken();
        if (mode == 1 && c == '[')
          inlineArray++;
        else if (mode == 1 && c == ']' && inlineArray > 0 && --inlineArray == 0)
          inFilter = false;
        if (c == '(') {
          inString = 1;
        } else if (c == '%') {
          inComment = true;
        } else if (c == '/') {
          token[0] = '/';
          length = 1;
        }
      } else if (length < sizeof token - 1) {
        token[length++] = (char)c;
      }
    }
  }

  /* the end of one stream of a page's /Contents array: a token ends there */
  void separate() {
    static const unsigned char newline = '\n';
    feed(&newline, 1);
    inString = 0;
    inComment = escape = false;
  }
};

/* Where qpdf's decoded bytes go: counted against the page's bound, then to a
 * content tokenizer or (a JPEG) into a buffer. */
class Sink : public Pipeline {
public:
  Sink(uint64_t &used, uint64_t limit, Content *content, std::string *buffer)
      : Pipeline("tilecut", nullptr), used(used), limit(limit), content(content), buffer(buffer) {}
  void write(unsigned char const *data, size_t len) override {
    used += len;
    if (used > limit) {
      over = true;
      throw Stop();
    }
    if (content)
      content->feed(data, len);
    if (buffer)
      buffer->append((const char *)data, len);
  }
  void finish() override {}
  bool over = false;

private:
  uint64_t &used;
  uint64_t limit;
  Content *content;
  std::string *buffer;
};

/* A JPEG's frame: its size, and whether it is progressive (whose decoder holds
 * every coefficient of the image: 2 bytes each). 0 when no frame is found. */
int jpegFrame(const std::string &jpeg, uint32_t *width, uint32_t *height, int *components, int *progressive) {
  const unsigned char *p = (const unsigned char *)jpeg.data();
  size_t n = jpeg.size(), i = 2;
  if (n < 4 || p[0] != 0xFF || p[1] != 0xD8)
    return 0;
  while (i + 4 <= n) {
    if (p[i] != 0xFF)
      return 0;
    unsigned char marker = p[i + 1];
    if (marker == 0xFF) {
      i++;
      continue;
    }
    size_t length = (size_t)p[i + 2] << 8 | p[i + 3];
    if (marker >= 0xC0 && marker <= 0xCF && marker != 0xC4 && marker != 0xC8 && marker != 0xCC) {
      if (i + 10 > n)
        return 0;
      *height = (uint32_t)p[i + 5] << 8 | p[i + 6];
      *width = (uint32_t)p[i + 7] << 8 | p[i + 8];
      *components = p[i + 9];
      *progressive = marker == 0xC2 || marker == 0xC6 || marker == 0xCA || marker == 0xCE;
      return 1;
    }
    if (marker == 0xDA || length < 2)
      return 0;
    i += 2 + length;
  }
  return 0;
}

/* Counts what qpdf decodes, dropping it, and stops past `limit` (then the rest
 * is not known). */
class Counter : public Pipeline {
public:
  explicit Counter(uint64_t limit) : Pipeline("tilecut count", nullptr), limit(limit) {}
  void write(unsigned char const *, size_t len) override {
    bytes += len;
    if (bytes > limit) {
      over = true;
      throw Stop();
    }
  }
  void finish() override {}
  uint64_t bytes = 0, limit;
  bool over = false;
};

/* Inflates zlib data as it comes, its output counted and dropped, to say
 * whether it is whole: its deflate data to their last block, and its Adler-32
 * right when it has one (qpdf's own Flate decoder reads on past a wrong
 * checksum, as poppler does; a writer that leaves the checksum out loses
 * nothing). Past `limit` bytes of output it stops. */
class Inflate : public Pipeline {
public:
  explicit Inflate(uint64_t limit) : Pipeline("tilecut inflate", nullptr), limit(limit), buffer(1 << 16) {
    memset(&z, 0, sizeof z);
    ready = inflateInit2(&z, -15) == Z_OK;
  }
  ~Inflate() override {
    if (ready)
      inflateEnd(&z);
  }
  void write(unsigned char const *data, size_t len) override {
    while (ready && error.empty() && len > 0) {
      if (header.size() < 2) {
        header.push_back(*data++);
        len--;
        if (header.size() == 2 && ((header[0] & 15) != 8 || (header[0] * 256 + header[1]) % 31 || header[1] & 32))
          error = "not a zlib header";
        continue;
      }
      if (ended) {
        /* its checksum, then what follows (not Flate data: poppler reads no further either) */
        while (len > 0 && trailer.size() < 4) {
          trailer.push_back(*data++);
          len--;
        }
        return;
      }
      uInt chunk = (uInt)std::min<size_t>(len, 1 << 20);
      z.next_in = const_cast<Bytef *>(data);
      z.avail_in = chunk;
      while (z.avail_in > 0 && !ended) {
        z.next_out = buffer.data();
        z.avail_out = (uInt)buffer.size();
        int result = inflate(&z, Z_NO_FLUSH);
        uInt made = (uInt)buffer.size() - z.avail_out;
        produced += made;
        adler = adler32(adler, buffer.data(), made);
        if (result == Z_STREAM_END) {
          ended = true;
        } else if (result != Z_OK) {
          error = z.msg ? z.msg : "invalid data";
          return;
        }
        if (produced > limit) {
          over = true;
          throw Stop();
        }
      }
      data += chunk - z.avail_in;
      len -= chunk - z.avail_in;
    }
  }
  void finish() override {}
  /* why its data are damaged, empty when they are not */
  std::string verdict() const {
    if (!error.empty())
      return "its Flate data is corrupt (zlib: " + error + ")";
    if (!ended)
      return "its Flate data ends early";
    if (trailer.size() == 4 &&
        ((uint32_t)trailer[0] << 24 | (uint32_t)trailer[1] << 16 | (uint32_t)trailer[2] << 8 | trailer[3]) != adler)
      return "its Flate data is corrupt (zlib: incorrect data check)";
    return "";
  }
  bool ready = false, over = false;
  uint64_t produced = 0;

private:
  bool ended = false;
  std::string error;
  std::vector<unsigned char> header, trailer;
  uLong adler = adler32(0, nullptr, 0);
  uint64_t limit;
  std::vector<unsigned char> buffer;
  z_stream z;
};

/* The data between ID and EI are cut where EI first follows white space, a guess
 * (poppler lets the filter say where the data end): only data that zlib finds
 * corrupt, or whose checksum is wrong, are damaged; data that merely end early
 * may have been cut short by the guess, and get no verdict. */
InlineVerdict inlineFlateVerdict(const std::string &data, std::string &why) {
  Inflate inflater(64 << 20);
  if (!inflater.ready)
    return InlineVerdict::unknown;
  try {
    inflater.write((const unsigned char *)data.data(), data.size());
  } catch (Stop &) {
    return InlineVerdict::unknown;
  }
  why = inflater.verdict();
  if (why.empty())
    return InlineVerdict::whole;
  return why.find("corrupt") != std::string::npos ? InlineVerdict::damaged : InlineVerdict::unknown;
}

/* Keeps a stream's first `keep` bytes and its last 16, and counts them all. */
class Ends : public Pipeline {
public:
  explicit Ends(size_t keep) : Pipeline("tilecut ends", nullptr), keep(keep) {}
  void write(unsigned char const *data, size_t len) override {
    if (head.size() < keep)
      head.append((const char *)data, std::min(len, keep - head.size()));
    tail.append((const char *)data + (len > 16 ? len - 16 : 0), std::min<size_t>(len, 16));
    if (tail.size() > 16)
      tail.erase(0, tail.size() - 16);
    total += len;
  }
  void finish() override {}
  std::string head, tail;
  uint64_t total = 0;

private:
  size_t keep;
};

struct Scan {
  QPDF &pdf;
  uint64_t maxDecoded, maxWalked;
  long maxDepth;
  uint64_t maxImageBytes;
  bool checkJPEGs;
  TcPDFScan *out;

  int page = 0;
  uint64_t used = 0;
  /* how deep a form or resource dictionary nests q, and the bytes of content
   * poppler walks to draw it once (its forms counted each time they are drawn) */
  struct Cost {
    long depth = 0;
    uint64_t walked = 0;
  };
  std::map<QPDFObjGen, Cost> formCost, resourceCost;
  /* what painting a mesh shading once costs, by object */
  std::map<QPDFObjGen, uint64_t> meshWalk;

  /* what painting a shading (a stream of mesh data, or a dictionary) once costs */
  uint64_t shadingWalk(QPDFObjectHandle shading) {
    if (!shading.isStream())
      return gradientWalk;
    auto known = meshWalk.find(shading.getObjGen());
    return known != meshWalk.end() ? known->second : gradientWalk;
  }
  std::set<QPDFObjGen> inProgress, images, reachedObjects;

  /* something poppler would hold whole, of `bytes`: past the budget, the page is refused */
  void hold(uint64_t bytes, const std::string &what, bool whole = false) {
    if (bytes <= maxImageBytes)
      return;
    snprintf(out->held, sizeof out->held, "%s, which poppler holds %s", what.c_str(),
             whole ? "whole" : ("as " + megabytes(bytes)).c_str());
    out->held_page = page;
    out->held_bytes = bytes;
    throw Stop();
  }

  static long long integer(QPDFObjectHandle dict, const char *key, long long otherwise) {
    QPDFObjectHandle o = dict.isDictionary() ? dict.getKey(key) : QPDFObjectHandle::newNull();
    if (o.isInteger())
      return o.getIntValue();
    return o.isReal() ? (long long)std::min(std::max(o.getNumericValue(), -9e18), 9e18) : otherwise;
  }

  static uint64_t positive(long long v) { return v > 0 ? (uint64_t)v : 0; }

  /* what a stream's /DecodeParms make poppler allocate for a row: CCITT's two
   * lines of /Columns ints, a predictor's lines of /Columns × /Colors samples */
  void parameters(QPDFObjectHandle stream, const char *what) {
    QPDFObjectHandle dict = stream.getDict();
    QPDFObjectHandle filters = dict.getKey("/Filter"), parms = dict.getKey("/DecodeParms");
    int n = filters.isArray() ? filters.getArrayNItems() : 1;
    for (int k = 0; k < n && k < 16; k++) {
      QPDFObjectHandle f = filters.isArray() ? filters.getArrayItem(k) : filters;
      QPDFObjectHandle p = parms.isArray() ? parms.getArrayItem(k) : parms;
      if (!f.isName() || !p.isDictionary())
        continue;
      std::string name = f.getName();
      uint64_t columns = positive(integer(p, "/Columns", 1)), bytes = 0;
      if (name == "/CCITTFaxDecode" || name == "/CCF") {
        bytes = times(add(columns, 2), 8);
      } else if ((name == "/FlateDecode" || name == "/Fl" || name == "/LZWDecode" || name == "/LZW") &&
                 integer(p, "/Predictor", 1) >= 2) {
        uint64_t samples = times(columns, positive(integer(p, "/Colors", 1)));
        uint64_t row = times(samples, positive(integer(p, "/BitsPerComponent", 8))) / 8;
        bytes = times(row, 3);
      }
      char said[200];
      snprintf(said, sizeof said, "has %s (object %d) whose %s /DecodeParms say /Columns %llu", what,
               stream.getObjectID(), name.c_str(), (unsigned long long)columns);
      hold(bytes, said);
    }
  }

  /* the colour components a shading's colour space has (1 when it names none poppler knows) */
  static uint64_t components(QPDFObjectHandle space) {
    if (space.isArray() && space.getArrayNItems() > 0) {
      QPDFObjectHandle family = space.getArrayItem(0);
      std::string name = family.isName() ? family.getName() : "";
      if (name == "/ICCBased" && space.getArrayNItems() > 1 && space.getArrayItem(1).isStream())
        return positive(integer(space.getArrayItem(1).getDict(), "/N", 1));
      if (name == "/DeviceN" && space.getArrayNItems() > 1 && space.getArrayItem(1).isArray())
        return space.getArrayItem(1).getArrayNItems();
      if (name == "/CalRGB" || name == "/Lab")
        return 3;
      return name == "/Indexed" || name == "/I" || name == "/Separation" || name == "/CalGray" ? 1 : components(family);
    }
    if (!space.isName())
      return 1;
    std::string name = space.getName();
    return name == "/DeviceRGB" || name == "/RGB" ? 3 : name == "/DeviceCMYK" || name == "/CMYK" ? 4 : 1;
  }

  /* a mesh shading (types 4 to 7): poppler holds every vertex or patch its data has */
  void mesh(QPDFObjectHandle stream, long long type) {
    QPDFObjectHandle dict = stream.getDict();
    uint64_t flag = positive(integer(dict, "/BitsPerFlag", 0));
    uint64_t coordinate = positive(integer(dict, "/BitsPerCoordinate", 0));
    uint64_t component = positive(integer(dict, "/BitsPerComponent", 0));
    uint64_t colours = dict.getKey("/Function").isNull() ? components(dict.getKey("/ColorSpace")) : 1;
    bool patches = type >= 6;
    uint64_t bits = type == 4   ? flag + 2 * coordinate + colours * component
                    : type == 5 ? 2 * coordinate + colours * component
                    : type == 6 ? flag + 24 * coordinate + 4 * colours * component
                                : flag + 32 * coordinate + 4 * colours * component;
    uint64_t itemBytes = std::max<uint64_t>(1, (std::min<uint64_t>(bits, 1 << 20) + 7) / 8);
    uint64_t cost = patches ? patchCost : vertexCost;
    uint64_t read = 0;
    Sink sink(read, maxImageBytes / cost * itemBytes + itemBytes, nullptr, nullptr);
    try {
      stream.pipeStreamData(&sink, nullptr, 0, qpdf_dl_specialized, true, false);
    } catch (Stop &) {
    } catch (std::exception &) {
    }
    meshWalk[stream.getObjGen()] = times(read / itemBytes, patches ? patchWalk : vertexWalk);
    char said[200];
    snprintf(said, sizeof said, "has a type %lld mesh shading (object %d) of %s%llu %s", type, stream.getObjectID(),
             sink.over ? "more than " : "", (unsigned long long)(read / itemBytes), patches ? "patches" : "vertices");
    hold(times(read / itemBytes, cost), said);
  }

  /* a type 0 function: poppler holds each of its samples as a double */
  void sampled(QPDFObjectHandle stream) {
    QPDFObjectHandle dict = stream.getDict(), size = dict.getKey("/Size"), range = dict.getKey("/Range");
    if (!size.isArray() || !range.isArray())
      return;
    uint64_t samples = std::max(1, range.getArrayNItems() / 2);
    std::string sizes;
    for (auto &each : size.getArrayAsVector()) {
      uint64_t n = each.isInteger() ? positive(each.getIntValue()) : 0;
      samples = times(samples, n);
      sizes += (sizes.empty() ? "" : " × ") + std::to_string(n);
    }
    char said[200];
    snprintf(said, sizeof said, "has a sampled function (object %d) of %s samples, %llu values", stream.getObjectID(),
             sizes.c_str(), (unsigned long long)samples);
    hold(times(samples, 8), said);
  }

  /* a stream a page's resources hold that poppler reads whole when it uses it
   * (a font, an ICC profile, a CMap, a function, a shading's mesh); forms,
   * patterns and glyphs are walked as content, images where they are drawn */
  void resourceStream(QPDFObjectHandle stream) {
    QPDFObjectHandle dict = stream.getDict();
    QPDFObjectHandle subtype = dict.getKey("/Subtype");
    parameters(stream, isName(subtype, "/Image") ? "an image" : "a stream");
    if (isName(subtype, "/Image") || isName(subtype, "/Form") || dict.hasKey("/PatternType"))
      return;
    long long shading = integer(dict, "/ShadingType", 0);
    if (shading >= 4 && shading <= 7) {
      mesh(stream, shading);
      return;
    }
    if (integer(dict, "/FunctionType", -1) == 0) {
      sampled(stream);
      return;
    }
    uint64_t read = 0;
    Sink sink(read, maxImageBytes, nullptr, nullptr);
    try {
      stream.pipeStreamData(&sink, nullptr, 0, qpdf_dl_specialized, true, false);
    } catch (Stop &) {
    } catch (std::exception &) {
    }
    char said[200];
    snprintf(said, sizeof said, "has a stream (object %d) that decodes to more than %s", stream.getObjectID(),
             megabytes(maxImageBytes).c_str());
    if (sink.over)
      hold(read, said, true);
  }

  /* every object a page's resources (or an annotation's appearances) reach,
   * once a document: its streams checked as resourceStream says */
  void reach(QPDFObjectHandle o, int nesting) {
    if (nesting > 64 || (o.isIndirect() && !reachedObjects.insert(o.getObjGen()).second))
      return;
    if (o.isArray()) {
      for (auto &item : o.getArrayAsVector())
        reach(item, nesting + 1);
      return;
    }
    static const std::set<std::string> away = {"/Parent", "/P",    "/Metadata", "/Popup", "/IRT",  "/Dest",
                                               "/A",      "/AA",   "/Next",     "/Prev",  "/First", "/Last",
                                               "/Thumb",  "/PieceInfo"};
    /* an object qpdf cannot read is left to poppler, as the content walk leaves it */
    try {
      if (o.isStream())
        resourceStream(o);
      QPDFObjectHandle dict = o.isStream() ? o.getDict() : o;
      if (!dict.isDictionary())
        return;
      for (auto &key : dict.getKeys())
        if (!away.count(key))
          reach(dict.getKey(key), nesting + 1);
    } catch (std::exception &) {
    }
  }

  /* decodes one stream into `content` or `buffer`, when qpdf can apply every
   * filter it names at `level` (else its bytes as they are, decrypted): whether
   * it did */
  bool pipe(QPDFObjectHandle stream, Content *content, std::string *buffer, qpdf_stream_decode_level_e level,
            bool flateWhole = false) {
    /* what a page decodes it walks at least once: past the walked bound, it stops there */
    Sink sink(used, std::min(maxDecoded, maxWalked), content, buffer);
    bool filtered = false, read = true;
    pdf.getWarnings();
    try {
      read = stream.pipeStreamData(&sink, &filtered, 0, level, !checkJPEGs, false);
    } catch (Stop &) {
    }
    if (sink.over && used > maxDecoded) {
      out->over_decoded = 1;
      out->decoded_page = page;
      throw Stop();
    }
    if (sink.over) {
      out->over_walked = 1;
      out->walked_page = page;
      out->walked_bytes = used;
      throw Stop();
    }
    if (checkJPEGs && filtered) {
      /* content cut short draws half a page */
      decodeWarnings(stream, "content stream", flateWhole);
      if (!read)
        damage(stream, "content stream", "its data cannot be decoded");
    }
    if (checkJPEGs && content && !content->inlineDamage.empty())
      damage(stream, "content stream", "an inline image's " + content->inlineDamage.substr(4));
    return filtered;
  }

  static int filterCount(QPDFObjectHandle stream) {
    QPDFObjectHandle filter = stream.getDict().getKey("/Filter");
    return filter.isArray() ? filter.getArrayNItems() : filter.isName() ? 1 : 0;
  }

  static bool isName(QPDFObjectHandle o, const char *name) { return o.isName() && o.getName() == name; }

  /* the filters a stream names, in the order they apply */
  static std::vector<std::string> filters(QPDFObjectHandle stream) {
    QPDFObjectHandle filter = stream.getDict().getKey("/Filter");
    std::vector<std::string> names;
    for (auto &each : filter.isArray() ? filter.getArrayAsVector() : std::vector<QPDFObjectHandle>{filter})
      names.push_back(each.isName() ? each.getName() : "");
    if (filter.isNull())
      names.clear();
    return names;
  }

  /* a stream whose data poppler would draw half decoded or padded, without a word */
  [[noreturn]] void damage(QPDFObjectHandle stream, const char *what, const std::string &why) {
    snprintf(out->damaged, sizeof out->damaged, "%s (object %d) is damaged: %s", what, stream.getObjectID(),
             why.c_str());
    out->damaged_page = page;
    throw Stop();
  }

  static bool isFlate(const std::string &name) { return name == "/FlateDecode" || name == "/Fl"; }

  /* a stream whose first filter is Flate: its zlib data whole, to its end and
   * its checksum (no verdict past `limit` bytes inflated); the bytes it
   * inflates to, or -1 */
  int64_t checkFlate(QPDFObjectHandle stream, const char *what, uint64_t limit) {
    std::vector<std::string> names = filters(stream);
    if (names.empty() || !isFlate(names[0]))
      return -1;
    Inflate inflater(limit);
    bool read = false;
    try {
      read = stream.pipeStreamData(&inflater, nullptr, 0, qpdf_dl_none, true, false);
    } catch (Stop &) {
      return -1;
    } catch (std::exception &) {
      return -1;
    }
    if (!read || !inflater.ready)
      return -1;
    std::string why = inflater.verdict();
    if (!why.empty())
      damage(stream, what, why);
    return (int64_t)inflater.produced;
  }

  /* a warning qpdf gave while decoding `stream`'s filters: the stream is
   * damaged (but a Flate stream that checkFlate found whole lacks only its
   * checksum, which qpdf waits for) */
  void decodeWarnings(QPDFObjectHandle stream, const char *what, bool flateWhole) {
    std::vector<std::string> names = filters(stream);
    for (QPDFExc &warning : pdf.getWarnings()) {
      std::string said = warning.getMessageDetail();
      if (said.find("input stream is complete") != std::string::npos) {
        if (flateWhole && names.size() == 1)
          continue;
        std::string filter = names.empty() || names.back().size() < 2 ? "" : names.back().substr(1);
        if (filter.size() > 6 && filter.compare(filter.size() - 6, 6, "Decode") == 0)
          filter.resize(filter.size() - 6);
        damage(stream, what, "its " + filter + (filter.empty() ? "" : " ") + "data ends early");
      }
      if (said.find("decod") != std::string::npos || said.find("stream") != std::string::npos)
        damage(stream, what, "its data cannot be decoded (qpdf: " + said + ")");
    }
  }

  /* a drawn image qpdf can decode (not a JPEG: libjpeg checks those): its data
   * whole, and at least as long as its dictionary says; a JPEG 2000 image's
   * codestream whole and of its size */
  void checkImage(QPDFObjectHandle image, uint64_t width, uint64_t height) {
    if (!checkJPEGs || !width || !height)
      return;
    std::vector<std::string> names = filters(image);
    if (!names.empty() && names.back() == "/JPXDecode") {
      if (names.size() == 1)
        jpx(image, width, height);
      return;
    }
    QPDFObjectHandle dict = image.getDict(), mask = dict.getKey("/ImageMask"), space = dict.getKey("/ColorSpace");
    bool stencil = mask.isBool() && mask.getBoolValue();
    uint64_t expected = 0;
    if (stencil || !space.isNull()) {
      uint64_t bits = stencil ? 1 : positive(integer(dict, "/BitsPerComponent", 8));
      uint64_t row = times(times(width, stencil ? 1 : components(space)), bits);
      expected = times(row / 8 + (row % 8 != 0), height);
    }
    /* room for a predictor's tag byte a row: past it, no verdict */
    uint64_t limit = add(times(expected, 2), 1 << 20);
    int64_t inflated = checkFlate(image, "image", limit);
    QPDFObjectHandle parms = dict.getKey("/DecodeParms");
    if (inflated >= 0 && names.size() == 1 && (parms.isNull() || integer(parms, "/Predictor", 1) < 2)) {
      /* Flate alone: what it inflates to is the image's data, without decoding it again */
      shortImage(image, (uint64_t)inflated, expected, true);
      return;
    }
    Counter counter(limit);
    bool filtered = false, read = false;
    pdf.getWarnings();
    try {
      read = image.pipeStreamData(&counter, &filtered, 0, qpdf_dl_specialized, false, false);
    } catch (Stop &) {
      pdf.getWarnings();
      return;
    } catch (std::exception &) {
      pdf.getWarnings();
      return;
    }
    if (!filtered)
      return;
    decodeWarnings(image, "image", inflated >= 0);
    if (!read)
      damage(image, "image", "its data cannot be decoded");
    shortImage(image, counter.bytes, expected, !names.empty());
  }

  /* an image whose data are shorter than its dictionary says: poppler pads it */
  void shortImage(QPDFObjectHandle image, uint64_t bytes, uint64_t expected, bool filtered) {
    if (bytes >= expected)
      return;
    if (image.getDict().hasKey("/F"))
      damage(image, "image", "its data are in another file (/F), which poppler does not read");
    char said[200];
    snprintf(said, sizeof said,
             "its data %s %llu bytes, fewer than the %llu its /Width, /Height, /ColorSpace and /BitsPerComponent say",
             filtered ? "decodes to" : "is", (unsigned long long)bytes, (unsigned long long)expected);
    damage(image, "image", said);
  }

  /* a JPEG 2000 image (a jp2 file or a bare codestream): its SIZ marker's size
   * is its dictionary's, and its codestream is whole (its box and its EOC) */
  void jpx(QPDFObjectHandle image, uint64_t width, uint64_t height) {
    Ends ends(1 << 20);
    try {
      if (!image.pipeStreamData(&ends, nullptr, 0, qpdf_dl_none, true, false))
        return;
    } catch (std::exception &) {
      return;
    }
    const std::string &d = ends.head;
    auto byte = [&d](size_t at) { return (unsigned char)d[at]; };
    uint64_t at = 0, end = ends.total;
    if (d.size() >= 12 && bigEndian(d, 0) == 12 && bigEndian(d, 4) == 0x6A502020) {
      bool found = false;
      for (uint64_t box = 0; box + 8 <= d.size();) {
        uint64_t length = bigEndian(d, box), header = 8;
        uint32_t type = bigEndian(d, box + 4);
        if (length == 1) {
          if (box + 16 > d.size())
            return;
          length = (uint64_t)bigEndian(d, box + 8) << 32 | bigEndian(d, box + 12);
          header = 16;
        } else if (length == 0) {
          length = ends.total - box;
        }
        if (length < header)
          damage(image, "image", "its JPEG 2000 boxes are damaged");
        if (type == 0x6A703263) { /* jp2c: the codestream */
          at = box + header;
          end = add(box, length);
          found = true;
          break;
        }
        box = add(box, length);
      }
      /* a codestream past the first megabyte is left to poppler */
      if (!found)
        return;
      if (end > ends.total) {
        char said[160];
        snprintf(said, sizeof said, "its JPEG 2000 codestream ends early (%llu of its %llu bytes)",
                 (unsigned long long)(ends.total - at), (unsigned long long)(end - at));
        damage(image, "image", said);
      }
    }
    if (at + 24 > d.size() || byte(at) != 0xFF || byte(at + 1) != 0x4F || byte(at + 2) != 0xFF ||
        byte(at + 3) != 0x51)
      damage(image, "image", "its data is not a JPEG 2000 codestream (no SOC and SIZ markers)");
    uint32_t xs = bigEndian(d, at + 8), ys = bigEndian(d, at + 12), xo = bigEndian(d, at + 16),
             yo = bigEndian(d, at + 20);
    uint64_t w = xs > xo ? xs - xo : 0, h = ys > yo ? ys - yo : 0;
    if (w != width || h != height) {
      char said[200];
      snprintf(said, sizeof said, "its JPEG 2000 codestream is %llu × %llu pixels, not the %llu × %llu its dictionary says",
               (unsigned long long)w, (unsigned long long)h, (unsigned long long)width, (unsigned long long)height);
      damage(image, "image", said);
    }
    /* its last bytes (white space after them allowed) are the EOC marker */
    if (end == ends.total) {
      std::string tail = ends.tail;
      while (!tail.empty() && (tail.back() == 0 || tail.back() == '\n' || tail.back() == '\r' || tail.back() == ' '))
        tail.pop_back();
      if (tail.size() < 2 || (unsigned char)tail[tail.size() - 2] != 0xFF || (unsigned char)tail.back() != 0xD9)
        damage(image, "image", "its JPEG 2000 codestream ends early (no EOC marker)");
    }
  }

  void image(QPDFObjectHandle xobject) {
    if (!images.insert(xobject.getObjGen()).second && xobject.isIndirect())
      return;
    QPDFObjectHandle dict = xobject.getDict();
    QPDFObjectHandle filter = dict.getKey("/Filter");
    if (filter.isArray() && filter.getArrayNItems() > 0)
      filter = filter.getArrayItem(filter.getArrayNItems() - 1);
    /* the JPEG as the only filter (a chain before it is left to poppler, as before) */
    bool dct = (isName(filter, "/DCTDecode") || isName(filter, "/DCT")) && filterCount(xobject) == 1;
    QPDFObjectHandle w = dict.getKey("/Width"), h = dict.getKey("/Height");
    uint64_t width = w.isInteger() && w.getIntValue() > 0 ? (uint64_t)std::min<long long>(w.getIntValue(), UINT32_MAX) : 0;
    uint64_t height = h.isInteger() && h.getIntValue() > 0 ? (uint64_t)std::min<long long>(h.getIntValue(), UINT32_MAX) : 0;
    int progressive = 0;
    uint64_t bytes = width * height * 4;
    parameters(xobject, "an image");
    /* its masks are images poppler decodes at their own size */
    for (const char *key : {"/SMask", "/Mask"}) {
      QPDFObjectHandle mask = dict.getKey(key);
      if (mask.isStream())
        image(mask);
    }
    if (isName(filter, "/JBIG2Decode")) {
      /* the segments, not the dictionary, say what poppler allocates */
      std::string data, globals;
      uint64_t read = 0;
      Sink sink(read, maxJBIG2Header, nullptr, &data);
      try {
        xobject.pipeStreamData(&sink, nullptr, 0, qpdf_dl_specialized, true, false);
      } catch (Stop &) {
      }
      QPDFObjectHandle parms = dict.getKey("/DecodeParms");
      if (parms.isArray())
        parms = parms.getArrayNItems() ? parms.getArrayItem(parms.getArrayNItems() - 1) : QPDFObjectHandle::newNull();
      QPDFObjectHandle shared = parms.isDictionary() ? parms.getKey("/JBIG2Globals") : QPDFObjectHandle::newNull();
      if (shared.isStream()) {
        uint64_t sharedRead = 0;
        Sink sharedSink(sharedRead, maxJBIG2Header, nullptr, &globals);
        try {
          shared.pipeStreamData(&sharedSink, nullptr, 0, qpdf_dl_specialized, true, false);
        } catch (Stop &) {
        }
      }
      uint32_t w = 0, h = 0, gw = 0, gh = 0;
      uint64_t bitmaps = jbig2Bytes(data, &w, &h), sharedBitmaps = jbig2Bytes(globals, &gw, &gh);
      char said[200];
      snprintf(said, sizeof said, "draws a JBIG2 image (object %d) whose segments declare a %u × %u bitmap",
               xobject.getObjectID(), sharedBitmaps > bitmaps ? gw : w, sharedBitmaps > bitmaps ? gh : h);
      hold(add(bitmaps, sharedBitmaps), said);
    }
    if (dct) {
      /* the JPEG itself says what its decoder holds, and its scan is what is read */
      std::string jpeg;
      uint64_t read = 0;
      Sink sink(read, maxDecoded, nullptr, &jpeg);
      try {
        xobject.pipeStreamData(&sink, nullptr, 0, qpdf_dl_specialized, true, false);
      } catch (Stop &) {
      }
      uint32_t fw = 0, fh = 0;
      int components = 0;
      if (sink.over) {
        /* a JPEG of more than a gigabyte is left to poppler and the pixel budget */
        return;
      }
      if (jpegFrame(jpeg, &fw, &fh, &components, &progressive) && progressive) {
        width = fw;
        height = fh;
        bytes = ((uint64_t)fw + 7) / 8 * (((uint64_t)fh + 7) / 8) * 128 * (uint64_t)std::max(components, 1);
      } else {
        bytes = 0;
      }
      if (bytes <= maxImageBytes && checkJPEGs) {
        char said[160] = "";
        if (tc_verify_jpeg_buffer(jpeg.data(), jpeg.size(), said, sizeof said)) {
          snprintf(out->jpeg_reason, sizeof out->jpeg_reason, "object %d (libjpeg: %s)", xobject.getObjectID(), said);
          out->jpeg_page = page;
          throw Stop();
        }
      }
    }
    if (bytes > out->image_bytes) {
      out->image_bytes = bytes;
      out->image_width = (uint32_t)width;
      out->image_height = (uint32_t)height;
      out->image_page = page;
      out->image_progressive = progressive;
      if (bytes > maxImageBytes)
        throw Stop();
    }
    if (!dct)
      checkImage(xobject, width, height);
  }

  /* a form (or a tiling pattern, a glyph, an appearance): how deep it nests,
   * with what it draws */
  /* `counted`: `resources` are the caller's, whose unnamed resources (Type 3 glyphs,
   * patterns, soft masks) the caller walks itself; a form without its own then does
   * not walk them again. (Each glyph of a Type 3 font without resources walked the
   * page's fonts again, each of those glyphs again: a page of ghostscript's bitmap
   * text counted as 309413 GB of content.) */
  Cost form(QPDFObjectHandle stream, QPDFObjectHandle resources, int level, bool counted = true) {
    if (!stream.isStream() || level > maxFormLevel)
      return {};
    QPDFObjGen id = stream.getObjGen();
    if (stream.isIndirect()) {
      auto known = formCost.find(id);
      if (known != formCost.end())
        return known->second;
      if (!inProgress.insert(id).second)
        return {}; /* a form that draws itself: poppler refuses the loop */
    }
    QPDFObjectHandle own = stream.getDict().getKey("/Resources");
    Cost cost = content({stream}, own.isDictionary() ? own : resources, level, !own.isDictionary() && counted);
    if (stream.isIndirect()) {
      inProgress.erase(id);
      formCost[id] = cost;
    }
    return cost;
  }

  /* content streams drawn one after another with `resources`: how deep they nest */
  Cost content(const std::vector<QPDFObjectHandle> &streams, QPDFObjectHandle resources, int level,
               bool inherited = false) {
    Content c;
    for (QPDFObjectHandle s : streams) {
      if (!s.isStream())
        continue;
      parameters(s, "a content stream");
      /* every filter poppler would apply to content (DCT too); one qpdf cannot
       * (CCITT, JBIG2, JPX, a crypt filter) would hide the drawing from this check */
      bool flateWhole = checkJPEGs && checkFlate(s, "content stream", maxDecoded) >= 0;
      if (!pipe(s, &c, nullptr, qpdf_dl_all, flateWhole) && filterCount(s) > 0) {
        QPDFObjectHandle filter = s.getDict().getKey("/Filter");
        if (filter.isArray())
          filter = filter.getArrayNItems() ? filter.getArrayItem(0) : QPDFObjectHandle::newNull();
        snprintf(out->undecodable, sizeof out->undecodable, "%s", filter.isName() ? filter.getName().c_str() : "?");
        out->undecodable_page = page;
        throw Stop();
      }
      c.separate();
    }
    if (c.largestInline > out->image_bytes) {
      out->image_bytes = c.largestInline;
      out->image_width = c.largestWidth;
      out->image_height = c.largestHeight;
      out->image_page = page;
      out->image_progressive = 0;
      if (c.largestInline > maxImageBytes)
        throw Stop();
    }
    if (c.inlineColumns) {
      char said[200];
      snprintf(said, sizeof said, "draws an inline image whose /DecodeParms say /Columns %llu",
               (unsigned long long)c.inlineColumns);
      hold(times(add(c.inlineColumns, 2), 8), said);
    }
    Cost below = drawnWith(c, resources, level, inherited);
    if (c.maxDepth + below.depth > out->q_depth) {
      out->q_depth = c.maxDepth + below.depth;
      out->q_page = page;
    }
    return {c.maxDepth + below.depth, add(c.bytes, below.walked)};
  }

  /* the forms a stream draws by name, and what its resources can draw without a
   * name in it (tiling patterns, Type 3 glyphs, soft-mask groups: walked once for
   * a resource dictionary many forms share) */
  Cost drawnWith(const Content &c, QPDFObjectHandle resources, int level, bool inherited) {
    Cost below;
    if (resources.isDictionary()) {
      QPDFObjectHandle xobjects = resources.getKey("/XObject");
      if (xobjects.isDictionary()) {
        for (auto &[name, count] : c.invoked) {
          QPDFObjectHandle x = xobjects.getKey(name);
          if (!x.isStream())
            continue;
          QPDFObjectHandle subtype = x.getDict().getKey("/Subtype");
          if (isName(subtype, "/Image")) {
            image(x);
            /* decoded again each time it is drawn */
            QPDFObjectHandle dict = x.getDict();
            uint64_t pixels = times(positive(integer(dict, "/Width", 0)), positive(integer(dict, "/Height", 0)));
            below.walked = add(below.walked, times(count, pixels / pixelsPerByte));
          } else if (isName(subtype, "/Form")) {
            Cost drawn = form(x, resources, level + 1);
            below.depth = std::max(below.depth, drawn.depth);
            below.walked = add(below.walked, times(count, add(drawn.walked, formOverhead)));
          }
        }
      }
      QPDFObjectHandle shadings = resources.getKey("/Shading");
      if (shadings.isDictionary())
        for (auto &[name, count] : c.shaded)
          below.walked = add(below.walked, times(count, shadingWalk(shadings.getKey(name))));
      /* a tiling pattern's cell is drawn again for each fill or stroke that paints with it */
      QPDFObjectHandle patterns = resources.getKey("/Pattern");
      if (patterns.isDictionary())
        for (auto &[name, count] : c.patterned) {
          QPDFObjectHandle pattern = patterns.getKey(name);
          QPDFObjectHandle dict = pattern.isStream() ? pattern.getDict() : pattern;
          uint64_t once = integer(dict, "/PatternType", 0) == 1
                              ? add(form(pattern, resources, level + 1).walked, formOverhead)
                              : shadingWalk(dict.getKey("/Shading"));
          below.walked = add(below.walked, times(count, once));
        }
      if (!inherited) {
        Cost other = unnamed(resources, level);
        below.depth = std::max(below.depth, other.depth);
        below.walked = add(below.walked, other.walked);
      }
    }
    return below;
  }

  Cost unnamed(QPDFObjectHandle resources, int level) {
    QPDFObjGen id = resources.getObjGen();
    if (resources.isIndirect()) {
      auto known = resourceCost.find(id);
      if (known != resourceCost.end())
        return known->second;
      resourceCost[id] = {}; /* a loop back to these resources adds nothing */
    }
    Cost below;
    auto also = [&below](Cost drawn) {
      below.depth = std::max(below.depth, drawn.depth);
      below.walked = add(below.walked, drawn.walked);
    };
    {
      QPDFObjectHandle states = resources.getKey("/ExtGState");
      if (states.isDictionary())
        for (auto &key : states.getKeys()) {
          QPDFObjectHandle state = states.getKey(key);
          QPDFObjectHandle mask = state.isDictionary() ? state.getKey("/SMask") : QPDFObjectHandle::newNull();
          if (mask.isDictionary())
            also(form(mask.getKey("/G"), resources, level + 1));
        }
      QPDFObjectHandle patterns = resources.getKey("/Pattern");
      if (patterns.isDictionary())
        for (auto &key : patterns.getKeys())
          also(form(patterns.getKey(key), resources, level + 1));
      QPDFObjectHandle fonts = resources.getKey("/Font");
      if (fonts.isDictionary())
        for (auto &key : fonts.getKeys()) {
          QPDFObjectHandle font = fonts.getKey(key);
          if (!font.isDictionary() || !isName(font.getKey("/Subtype"), "/Type3"))
            continue;
          QPDFObjectHandle procs = font.getKey("/CharProcs"), own = font.getKey("/Resources");
          if (procs.isDictionary())
            for (auto &glyph : procs.getKeys())
              also(form(procs.getKey(glyph), own.isDictionary() ? own : resources, level + 1, !own.isDictionary()));
        }
    }
    if (resources.isIndirect())
      resourceCost[id] = below;
    return below;
  }

  void scanPage(QPDFObjectHandle pageObject) {
    used = 0;
    QPDFPageObjectHelper helper(pageObject);
    QPDFObjectHandle resources = helper.getAttribute("/Resources", false);
    QPDFObjectHandle contents = pageObject.getKey("/Contents");
    std::vector<QPDFObjectHandle> streams;
    if (contents.isArray())
      streams = contents.getArrayAsVector();
    else
      streams.push_back(contents);
    reach(resources, 0);
    uint64_t walked = content(streams, resources, 0).walked;
    QPDFObjectHandle annots = pageObject.getKey("/Annots");
    if (annots.isArray())
      for (auto &annot : annots.getArrayAsVector()) {
        if (!annot.isDictionary())
          continue;
        QPDFObjectHandle normal = annot.getKey("/AP");
        reach(normal, 0);
        normal = normal.isDictionary() ? normal.getKey("/N") : QPDFObjectHandle::newNull();
        if (normal.isStream()) {
          walked = add(walked, form(normal, resources, 1).walked);
        } else if (normal.isDictionary()) {
          for (auto &state : normal.getKeys())
            walked = add(walked, form(normal.getKey(state), resources, 1).walked);
        }
      }
    if (walked > maxWalked && !out->over_walked) {
      out->over_walked = 1;
      out->walked_page = page;
      out->walked_bytes = walked;
    }
  }

  bool over() const {
    return out->q_depth > maxDepth || out->over_decoded || out->over_walked || out->held[0] ||
           out->image_bytes > maxImageBytes || out->jpeg_reason[0] ||
           out->undecodable[0] || out->damaged[0];
  }
};

} // namespace

extern "C" int tc_pdf_scan(const char *filename, uint64_t max_decoded, uint64_t max_walked, long max_depth,
                           uint64_t max_image_bytes,
                           int check_jpegs, TcPDFScan *out) {
  memset(out, 0, sizeof *out);
  try {
    QPDF pdf;
    pdf.setSuppressWarnings(true);
    pdf.processFile(filename, "");
    Scan scan{pdf, max_decoded, max_walked, max_depth, max_image_bytes, check_jpegs != 0, out};
    const std::vector<QPDFObjectHandle> &pages = pdf.getAllPages();
    for (size_t k = 0; k < pages.size() && !scan.over(); k++) {
      scan.page = (int)k;
      try {
        scan.scanPage(pages[k]);
      } catch (Stop &) {
      }
    }
    return 0;
  } catch (...) {
    memset(out, 0, sizeof *out);
    return 1;
  }
}
