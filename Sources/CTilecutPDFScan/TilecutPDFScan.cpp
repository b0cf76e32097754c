#include "TilecutPDFScan.h"

/* qpdf 11: no PointerHolder in what this file uses */
#define POINTERHOLDER_TRANSITION 4

#include <qpdf/Pipeline.hh>
#include <qpdf/QPDF.hh>
#include <qpdf/QPDFObjectHandle.hh>
#include <qpdf/QPDFPageObjectHelper.hh>

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

/* Thrown through qpdf's decoding when a bound is passed. */
struct Stop {};

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

/* The tokens of a content stream, fed in pieces: q and Q nesting, the names
 * drawn with Do, inline images' declared sizes. */
struct Content {
  long depth = 0, maxDepth = 0;
  int inString = 0;
  bool escape = false, inComment = false;
  /* the token being read (its first 63 bytes) and the last name */
  char token[64];
  size_t length = 0;
  char lastName[64];
  size_t nameLength = 0;
  std::set<std::string> invoked;
  /* inline images: 0 content, 1 the dictionary after BI, 2 the data after ID */
  int mode = 0;
  std::string key;
  uint64_t inlineWidth = 0, inlineHeight = 0;
  uint64_t largestInline = 0;
  uint32_t largestWidth = 0, largestHeight = 0;
  unsigned char window[3] = {' ', ' ', ' '};

  static bool space(unsigned char c) { return classes.of[c] == 1; }
  static bool delimiter(unsigned char c) { return classes.of[c] != 0; }
  bool is(const char *word) const { return length == strlen(word) && memcmp(token, word, length) == 0; }

  void endToken() {
    if (!length)
      return;
    if (mode == 1) {
      inlineToken();
    } else if (token[0] == '/') {
      memcpy(lastName, token, length);
      nameLength = length;
    } else if (length == 1 && token[0] == 'q') {
      maxDepth = std::max(maxDepth, ++depth);
    } else if (length == 1 && token[0] == 'Q') {
      if (depth > 0)
        depth--;
    } else if (is("Do")) {
      if (nameLength && invoked.size() < maxInvoked)
        invoked.insert(std::string(lastName, nameLength));
    } else if (is("BI")) {
      mode = 1;
      key.clear();
      inlineWidth = inlineHeight = 0;
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
    } else if (token[0] == '/') {
      key.assign(token, length);
    } else {
      std::string number(token, length);
      char *end = nullptr;
      double v = strtod(number.c_str(), &end);
      uint64_t n = end && *end == 0 && v > 0 ? (uint64_t)std::min(v, 4e9) : 0;
      if (key == "/W" || key == "/Width")
        inlineWidth = n;
      else if (key == "/H" || key == "/Height")
        inlineHeight = n;
      key.clear();
    }
  }

  void feed(const unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
      unsigned char c = p[i];
      if (mode == 2) {
        /* an inline image's data runs to the first EI between white space */
        if (space(window[0]) && window[1] == 'E' && window[2] == 'I' && delimiter(c)) {
          mode = 0;
          length = 0;
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

struct Scan {
  QPDF &pdf;
  uint64_t maxDecoded;
  long maxDepth;
  uint64_t maxImageBytes;
  bool checkJPEGs;
  TcPDFScan *out;

  int page = 0;
  uint64_t used = 0;
  std::map<QPDFObjGen, long> formDepth, resourceDepth;
  std::set<QPDFObjGen> inProgress, images;

  /* decodes one stream into `content` or `buffer`, when qpdf can apply every
   * filter it names at `level` (else its bytes as they are, decrypted): whether
   * it did */
  bool pipe(QPDFObjectHandle stream, Content *content, std::string *buffer, qpdf_stream_decode_level_e level) {
    Sink sink(used, maxDecoded, content, buffer);
    bool filtered = false;
    try {
      stream.pipeStreamData(&sink, &filtered, 0, level, true, false);
    } catch (Stop &) {
    }
    if (sink.over) {
      out->over_decoded = 1;
      out->decoded_page = page;
      throw Stop();
    }
    return filtered;
  }

  static int filterCount(QPDFObjectHandle stream) {
    QPDFObjectHandle filter = stream.getDict().getKey("/Filter");
    return filter.isArray() ? filter.getArrayNItems() : filter.isName() ? 1 : 0;
  }

  static bool isName(QPDFObjectHandle o, const char *name) { return o.isName() && o.getName() == name; }

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
  }

  /* a form (or a tiling pattern, a glyph, an appearance): how deep it nests,
   * with what it draws */
  long form(QPDFObjectHandle stream, QPDFObjectHandle resources, int level) {
    if (!stream.isStream() || level > maxFormLevel)
      return 0;
    QPDFObjGen id = stream.getObjGen();
    if (stream.isIndirect()) {
      auto known = formDepth.find(id);
      if (known != formDepth.end())
        return known->second;
      if (!inProgress.insert(id).second)
        return 0; /* a form that draws itself: poppler refuses the loop */
    }
    QPDFObjectHandle own = stream.getDict().getKey("/Resources");
    long depth = content({stream}, own.isDictionary() ? own : resources, level);
    if (stream.isIndirect()) {
      inProgress.erase(id);
      formDepth[id] = depth;
    }
    return depth;
  }

  /* content streams drawn one after another with `resources`: how deep they nest */
  long content(const std::vector<QPDFObjectHandle> &streams, QPDFObjectHandle resources, int level) {
    Content c;
    for (QPDFObjectHandle s : streams) {
      if (!s.isStream())
        continue;
      /* every filter poppler would apply to content (DCT too); one qpdf cannot
       * (CCITT, JBIG2, JPX, a crypt filter) would hide the drawing from this check */
      if (!pipe(s, &c, nullptr, qpdf_dl_all) && filterCount(s) > 0) {
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
    long below = drawnWith(c, resources, level);
    if (c.maxDepth + below > out->q_depth) {
      out->q_depth = c.maxDepth + below;
      out->q_page = page;
    }
    return c.maxDepth + below;
  }

  /* the forms a stream draws by name, and what its resources can draw without a
   * name in it (tiling patterns, Type 3 glyphs, soft-mask groups: walked once for
   * a resource dictionary many forms share) */
  long drawnWith(const Content &c, QPDFObjectHandle resources, int level) {
    long below = 0;
    if (resources.isDictionary()) {
      QPDFObjectHandle xobjects = resources.getKey("/XObject");
      if (xobjects.isDictionary()) {
        for (auto &name : c.invoked) {
          QPDFObjectHandle x = xobjects.getKey(name);
          if (!x.isStream())
            continue;
          QPDFObjectHandle subtype = x.getDict().getKey("/Subtype");
          if (isName(subtype, "/Image"))
            image(x);
          else if (isName(subtype, "/Form"))
            below = std::max(below, form(x, resources, level + 1));
        }
      }
      below = std::max(below, unnamed(resources, level));
    }
    return below;
  }

  long unnamed(QPDFObjectHandle resources, int level) {
    QPDFObjGen id = resources.getObjGen();
    if (resources.isIndirect()) {
      auto known = resourceDepth.find(id);
      if (known != resourceDepth.end())
        return known->second;
      resourceDepth[id] = 0; /* a loop back to these resources adds nothing */
    }
    long below = 0;
    {
      QPDFObjectHandle states = resources.getKey("/ExtGState");
      if (states.isDictionary())
        for (auto &key : states.getKeys()) {
          QPDFObjectHandle state = states.getKey(key);
          QPDFObjectHandle mask = state.isDictionary() ? state.getKey("/SMask") : QPDFObjectHandle::newNull();
          if (mask.isDictionary())
            below = std::max(below, form(mask.getKey("/G"), resources, level + 1));
        }
      QPDFObjectHandle patterns = resources.getKey("/Pattern");
      if (patterns.isDictionary())
        for (auto &key : patterns.getKeys())
          below = std::max(below, form(patterns.getKey(key), resources, level + 1));
      QPDFObjectHandle fonts = resources.getKey("/Font");
      if (fonts.isDictionary())
        for (auto &key : fonts.getKeys()) {
          QPDFObjectHandle font = fonts.getKey(key);
          if (!font.isDictionary() || !isName(font.getKey("/Subtype"), "/Type3"))
            continue;
          QPDFObjectHandle procs = font.getKey("/CharProcs"), own = font.getKey("/Resources");
          if (procs.isDictionary())
            for (auto &glyph : procs.getKeys())
              below = std::max(below, form(procs.getKey(glyph), own.isDictionary() ? own : resources, level + 1));
        }
    }
    if (resources.isIndirect())
      resourceDepth[id] = below;
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
    content(streams, resources, 0);
    QPDFObjectHandle annots = pageObject.getKey("/Annots");
    if (annots.isArray())
      for (auto &annot : annots.getArrayAsVector()) {
        if (!annot.isDictionary())
          continue;
        QPDFObjectHandle normal = annot.getKey("/AP");
        normal = normal.isDictionary() ? normal.getKey("/N") : QPDFObjectHandle::newNull();
        if (normal.isStream()) {
          form(normal, resources, 1);
        } else if (normal.isDictionary()) {
          for (auto &state : normal.getKeys())
            form(normal.getKey(state), resources, 1);
        }
      }
  }

  bool over() const {
    return out->q_depth > maxDepth || out->over_decoded || out->image_bytes > maxImageBytes || out->jpeg_reason[0] ||
           out->undecodable[0];
  }
};

} // namespace

extern "C" int tc_pdf_scan(const char *filename, uint64_t max_decoded, long max_depth, uint64_t max_image_bytes,
                           int check_jpegs, TcPDFScan *out) {
  memset(out, 0, sizeof *out);
  try {
    QPDF pdf;
    pdf.setSuppressWarnings(true);
    pdf.processFile(filename, "");
    Scan scan{pdf, max_decoded, max_depth, max_image_bytes, check_jpegs != 0, out};
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
