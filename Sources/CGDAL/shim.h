#include <gdal.h>
