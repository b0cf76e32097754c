# The formula as a tap would hold it (a repository named homebrew-tilecut, file
# Formula/tilecut.rb): `brew tap example/tilecut && brew install tilecut`.
# url and sha256 are placeholders until a release tarball exists. Never run on a Mac
# here: see README "On macOS".
class Tilecut < Formula
  desc "Tile floor plans (PNG, JPEG, TIFF, PDF, SVG) into Web-Mercator pyramids"
  homepage "https://github.com/example/tilecut"
  url "https://github.com/example/tilecut/archive/refs/tags/v1.0.0.tar.gz"
  sha256 "0000000000000000000000000000000000000000000000000000000000000000"
  license "MIT"
  head "https://github.com/example/tilecut.git", branch: "main"

  depends_on "pkgconf" => :build
  depends_on xcode: ["16.0", :build] # Swift 6 (Package.swift: swift-tools-version 6.0)
  depends_on "cairo"
  depends_on "gdal"
  depends_on "isa-l"
  depends_on "libdeflate"
  depends_on "libgeotiff"
  depends_on "librsvg"
  depends_on :macos
  depends_on "poppler"
  depends_on "proj"
  depends_on "qpdf"
  depends_on "sqlite"
  depends_on "vips"

  def install
    # SwiftPM's own sandbox cannot nest inside Homebrew's build sandbox
    system "swift", "build", "--disable-sandbox", "-c", "release"
    bin.install ".build/release/tilecut"
    # bash, zsh and fish completions from `tilecut --generate-completion-script SHELL`
    generate_completions_from_executable(bin/"tilecut", "--generate-completion-script")
  end

  test do
    # a 512 px square drawing with no georeference: placed in pixel space, native at
    # zoom 1, so 1 + 4 tiles at each of the two default tile sizes
    (testpath/"plan.svg").write <<~SVG
      <svg xmlns="http://www.w3.org/2000/svg" width="512" height="512">
        <rect width="512" height="512" fill="white"/>
        <rect x="64" y="64" width="384" height="384" fill="none" stroke="black" stroke-width="8"/>
      </svg>
    SVG
    system bin/"tilecut", "plan.svg", "-o", "out"
    manifest = JSON.parse((testpath/"out/manifest.json").read)
    assert_equal "tilecut-manifest", manifest["format"]
    assert_equal [256, 512], manifest["tileSizes"]
    assert_equal [1], manifest["floors"]
    assert_equal [0, 1], manifest["levels"].map { |l| l["zoom"] }.uniq.sort
    assert_equal 10, manifest["levels"].sum { |l| l["tileCount"] }
    assert_path_exists testpath/"out/256/L1_1_1_1.png"
    assert_path_exists testpath/"out/512/L1_0_0_0.png"
    assert_match "10 tiles", shell_output("#{bin}/tilecut verify out 2>&1")
  end
end
