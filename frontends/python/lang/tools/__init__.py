"""
`ti.tools`: image files (imwrite, imread, imresize, imshow), videos (VideoManager:
frames to mp4 and gif) and point clouds / meshes (PLYWriter).
"""

from .image import imread, imresize, imshow, imwrite
from .ply import PLYWriter
from .video import VideoManager

__all__ = ["PLYWriter", "VideoManager", "imread", "imresize", "imshow", "imwrite"]
