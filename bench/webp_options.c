/* libwebp directly on 256 px tiles of a raw RGBA crop (issue 26 item 3: the options' sweep
 * in bench/README.md "Photo tiles against dzsave"). Build and run:
 *   vips crop bench/work/photo8192.jpg crop.v 2048 2048 2048 2048
 *   vips bandjoin_const crop.v crop4.v 255 && vips rawsave crop4.v /tmp/photo/crop.rgba
 *   cc -O2 bench/webp_options.c -o webp_options -lwebp -lm
 *   ./webp_options METHOD QUALITY [sns=N] [fs=N] [sharp=N] [segments=N] ...
 * Prints bytes, encode seconds, PSNR over RGB and a quick SSIM (RGB, 8×8 windows);
 * the decoded crop goes to /tmp/photo/dec.rgba for a luma SSIM. */
#include <webp/encode.h>
#include <webp/decode.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <time.h>
#define N 2048
#define T 256
static double now(){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static double ssim_block(const unsigned char*a,const unsigned char*b,int st,int w){ // luma-ish per channel avg over 8x8 windows stride 4
  double tot=0;int cnt=0;const double C1=6.5025,C2=58.5225;
  for(int c=0;c<3;c++)for(int y=0;y+8<=w;y+=4)for(int x=0;x+8<=w;x+=4){double sa=0,sb=0,saa=0,sbb=0,sab=0;
    for(int j=0;j<8;j++)for(int i=0;i<8;i++){double p=a[(y+j)*st+(x+i)*4+c],q=b[(y+j)*w*4+(x+i)*4+c];sa+=p;sb+=q;saa+=p*p;sbb+=q*q;sab+=p*q;}
    double ma=sa/64,mb=sb/64,va=saa/64-ma*ma,vb=sbb/64-mb*mb,cv=sab/64-ma*mb;
    tot+=((2*ma*mb+C1)*(2*cv+C2))/((ma*ma+mb*mb+C1)*(va+vb+C2));cnt++;}
  return tot/cnt;}
int main(int argc,char**argv){
  FILE*f=fopen("/tmp/photo/crop.rgba","rb");unsigned char*img=malloc(N*N*4);fread(img,1,N*N*4,f);fclose(f);
  int method=atoi(argv[1]);float q=atof(argv[2]);
  WebPConfig cfg;WebPConfigInit(&cfg);cfg.quality=q;cfg.method=method;
  for(int i=3;i<argc;i++){char k[64];int v;sscanf(argv[i],"%63[^=]=%d",k,&v);
    if(!strcmp(k,"segments"))cfg.segments=v;else if(!strcmp(k,"sns"))cfg.sns_strength=v;else if(!strcmp(k,"fs"))cfg.filter_strength=v;
    else if(!strcmp(k,"sharp"))cfg.filter_sharpness=v;else if(!strcmp(k,"af"))cfg.autofilter=v;else if(!strcmp(k,"pre"))cfg.preprocessing=v;
    else if(!strcmp(k,"part"))cfg.partitions=v;else if(!strcmp(k,"sy"))cfg.use_sharp_yuv=v;else if(!strcmp(k,"ft"))cfg.filter_type=v;
    else if(!strcmp(k,"pass"))cfg.pass=v;else if(!strcmp(k,"tl"))cfg.thread_level=v;else if(!strcmp(k,"ps"))cfg.partition_limit=v;
    else {fprintf(stderr,"?%s\n",k);return 1;}}
  if(!WebPValidateConfig(&cfg)){fprintf(stderr,"bad cfg\n");return 1;}
  size_t bytes=0;unsigned char*dec=malloc(N*N*4);double se=0,ss=0;double t=0;int nt=0;
  for(int rep=0;rep<1;rep++)
  for(int ty=0;ty<N/T;ty++)for(int tx=0;tx<N/T;tx++){
    const unsigned char*p=img+(size_t)ty*T*N*4+tx*T*4;
    double t0=now();
    WebPPicture pic;WebPPictureInit(&pic);pic.use_argb=method>=0?0:0;pic.width=T;pic.height=T;
    WebPPictureImportRGBA(&pic,p,N*4);
    WebPMemoryWriter w;WebPMemoryWriterInit(&w);pic.writer=WebPMemoryWrite;pic.custom_ptr=&w;
    WebPEncode(&cfg,&pic);WebPPictureFree(&pic);t+=now()-t0;
    bytes+=w.size;int dw,dh;unsigned char*d=WebPDecodeRGBA(w.mem,w.size,&dw,&dh);
    for(int y=0;y<T;y++)for(int x=0;x<T;x++)for(int c=0;c<3;c++){double e=(double)p[y*N*4+x*4+c]-d[(y*T+x)*4+c];se+=e*e;}
    for(int y=0;y<T;y++)memcpy(dec+((size_t)(ty*T+y)*N+tx*T)*4,d+y*T*4,T*4);ss+=ssim_block(p,d,N*4,T);nt++;WebPFree(d);WebPMemoryWriterClear(&w);}
  {FILE*o=fopen("/tmp/photo/dec.rgba","wb");fwrite(dec,1,N*N*4,o);fclose(o);}
  printf("m%d q%.0f %-30s bytes %zu time %.3f psnr %.3f ssim %.4f\n",method,q,argc>3?argv[3]:"",bytes,t,10*log10(255.*255/(se/(N*N*3.))),ss/nt);
}
