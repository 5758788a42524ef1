// Layout algebra on a WMMA-sized problem: the 16x16 f32 accumulator tile of a gfx12
// v_wmma_f32_16x16x16 (32 lanes x 8 VGPRs) and a 64x64 block tiled by 16x16 atoms.
// Prints the layouts and tables, and draws two SVG files in the working directory.
#include <tilewave.hpp>

#include <fstream>
#include <iostream>

using namespace tw;

int main() {
  // The C/D tile (RDNA4 ISA, wave32): VGPR r of lane l holds row 8*(l/16) + r, column
  // l % 16. As a layout from (lane, vgpr) to the column-major element index m + 16*n:
  // lane = (l%16, l/16) has strides (16, 8), vgpr r has stride 1.
  constexpr auto c_tv = make_layout(make_shape(make_shape(Int<16>{}, Int<2>{}), Int<8>{}),
                                    make_stride(make_stride(Int<16>{}, Int<8>{}), Int<1>{}));
  static_assert(size(c_tv) == 256 && cosize(c_tv) == 256);
  static_assert(c_tv(17, 3) == 8 + 3 + 16 * 1); // lane 17, VGPR 3 -> (row 11, column 1)
  std::cout << "WMMA f32 C tile, (lane,vgpr) -> m + 16n: " << c_tv << "\n";

  // Who owns element (m, n)? The inverse, viewed as a 16x16 matrix, gives the TV index
  // t = lane + 32 * vgpr.
  constexpr auto owner =
      composition(right_inverse(c_tv), make_layout(make_shape(Int<16>{}, Int<16>{})));
  std::cout << "(m,n) -> lane + 32*vgpr: " << owner << "\n";
  for (int m = 0; m < 16; ++m)
    for (int n = 0; n < 16; ++n) {
      const int64_t t = owner(m, n), lane = t % 32, vgpr = t / 32;
      if (8 * (lane / 16) + vgpr != m || lane % 16 != n) {
        std::cerr << "owner map disagrees with the ISA at (" << m << "," << n << ")\n";
        return 1;
      }
    }
  std::cout << index_table(index_grid(owner, "C tile: lane + 32*vgpr at (m,n)"));
  std::ofstream("wmma_c_tile.svg") << index_svg(index_grid(owner, "WMMA C tile: lane + 32*vgpr"));

  // A 64x64 column-major block split into 16x16 atoms: ((atom), (which atom)).
  constexpr auto block = make_layout(make_shape(Int<64>{}, Int<64>{}));
  constexpr auto tiles = zipped_divide(block, make_shape(Int<16>{}, Int<16>{}));
  static_assert(size(get<0>(tiles)) == 256 && size(get<1>(tiles)) == 16);
  std::cout << "64x64 block by 16x16 atoms: " << tiles << "\n";
  std::cout << "atom (2,1) starts at element " << tiles(0, make_coord(2, 1)) << "\n";
  // Tiling the other way round: the atom repeated over a 4x4 grid is a 64x64 layout in
  // which each atom's 256 elements are contiguous (atom (i,j) starts at 256*i + 1024*j).
  constexpr auto grid = blocked_product(make_layout(make_shape(Int<16>{}, Int<16>{})),
                                        make_layout(make_shape(Int<4>{}, Int<4>{})));
  std::cout << "blocked_product(16x16 atom, 4x4 grid): " << grid << "\n";
  std::cout << index_table(index_grid(get<1>(tiles), "offset of each 16x16 atom"));
  std::ofstream("block_64x64_atoms.svg")
      << index_svg(index_grid(get<1>(tiles), "64x64 block: atom offsets"));
  std::cout << "wrote wmma_c_tile.svg and block_64x64_atoms.svg\n";
  return 0;
}
