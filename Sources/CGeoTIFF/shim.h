#include <tiffio.h>
#include <geotiff/geotiffio.h>
#include <geotiff/geo_normalize.h>
#include <geotiff/xtiffio.h>
