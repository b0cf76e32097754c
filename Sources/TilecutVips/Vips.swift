import CVips
import CVipsShim
import TilecutCore
