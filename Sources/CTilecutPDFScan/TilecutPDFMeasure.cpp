#include "TilecutPDFScan.h"

/* qpdf 11: no PointerHolder in what this file uses */
#define POINTERHOLDER_TRANSITION 4

#include <qpdf/QPDF.hh>
#include <qpdf/QPDFObjectHandle.hh>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

/* A number of a dictionary, or NaN. */
double number(QPDFObjectHandle dict, const char *key) {
  QPDFObjectHandle value = dict.getKey(key);
  return value.isNumber() ? value.getNumericValue() : NAN;
}

/* A text string of a dictionary (UTF-8), trimmed of blanks, or "". */
std::string text(QPDFObjectHandle dict, const char *key) {
  QPDFObjectHandle value = dict.getKey(key);
  if (!value.isString())
    return "";
  std::string s = value.getUTF8Value();
  size_t first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos)
    return "";
  size_t last = s.find_last_not_of(" \t\r\n");
  return s.substr(first, last - first + 1);
}

void copy(char *to, size_t size, const std::string &from) {
  size_t n = std::min(size - 1, from.size());
  memcpy(to, from.data(), n);
  to[n] = 0;
}

/* The first number format of a /Measure's array `key` (its /C and /U). */
bool format(QPDFObjectHandle measure, const char *key, double *c, std::string *u) {
  QPDFObjectHandle formats = measure.getKey(key);
  if (!formats.isArray() || formats.getArrayNItems() < 1)
    return false;
  QPDFObjectHandle first = formats.getArrayItem(0);
  if (!first.isDictionary())
    return false;
  *c = number(first, "/C");
  *u = text(first, "/U");
  return std::isfinite(*c) && *c > 0;
}

} // namespace

extern "C" int tc_pdf_measure(const char *filename, int page, TcPDFMeasure *out) {
  memset(out, 0, sizeof *out);
  try {
    QPDF pdf;
    pdf.setSuppressWarnings(true);
    pdf.processFile(filename, "");
    const std::vector<QPDFObjectHandle> &pages = pdf.getAllPages();
    if (page < 0 || (size_t)page >= pages.size())
      return 1;
    QPDFObjectHandle pageObject = pages[(size_t)page];
    QPDFObjectHandle viewports = pageObject.getKey("/VP");
    if (!viewports.isArray())
      return 0;
    /* a page's few viewports: more than this many is not a drawing's */
    int items = std::min(viewports.getArrayNItems(), 1000);
    for (int k = 0; k < items; k++) {
      QPDFObjectHandle vp = viewports.getArrayItem(k);
      if (!vp.isDictionary())
        continue;
      QPDFObjectHandle measure = vp.getKey("/Measure");
      if (!measure.isDictionary() || !measure.getKey("/Subtype").isNameAndEquals("/RL"))
        continue;
      double c = NAN;
      std::string unit;
      if (!format(measure, "/X", &c, &unit))
        continue;
      /* /Y, when present, scales y: another scale than x is not one drawing scale */
      double cy = c;
      std::string unitY = unit;
      bool anisotropic = format(measure, "/Y", &cy, &unitY) && (std::fabs(cy - c) > 1e-9 * c || unitY != unit);
      if (out->viewports == 0) {
        out->units_per_point = c;
        copy(out->unit, sizeof out->unit, unit);
        copy(out->ratio, sizeof out->ratio, text(measure, "/R"));
        QPDFObjectHandle box = vp.getKey("/BBox");
        if (box.isArray() && box.getArrayNItems() == 4) {
          for (int i = 0; i < 4; i++) {
            QPDFObjectHandle v = box.getArrayItem(i);
            out->bbox[i] = v.isNumber() ? v.getNumericValue() : NAN;
          }
        }
        if (anisotropic)
          out->disagreeing++;
      } else if (anisotropic || std::fabs(c - out->units_per_point) > 1e-9 * out->units_per_point || unit != out->unit) {
        out->disagreeing++;
      }
      out->viewports++;
    }
    return 0;
  } catch (...) {
    memset(out, 0, sizeof *out);
    return 1;
  }
}
